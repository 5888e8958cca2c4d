package openai

import (
	"github.com/troupehq/troupe/runtime/jsontext"
	"github.com/troupehq/troupe/runtime/llm"
)

// frame is what one streamed chat.completion.chunk says, as slices into the
// frame's bytes (or the scanner's scratch). It is reused from frame to frame
// so that reading a delta allocates nothing.
type frame struct {
	id, model  []byte
	parts      []part
	finish     []byte
	hasFinish  bool
	usage      llm.Usage
	hasUsage   bool
	hasError   bool
	sawChoices bool
}

// part is one delta in the order the server wrote it.
type part struct {
	kind  llm.ChunkKind
	text  []byte // text, thinking or a piece of tool-call arguments
	index int
	id    []byte
	name  []byte
}

func (f *frame) reset() {
	*f = frame{parts: f.parts[:0]}
}

// parseFrame reads one chunk object. Only the first choice is read: troupe
// never asks for n > 1. A top-level "error" key only sets hasError, because
// error frames are rare and are re-read with encoding/json.
func parseFrame(s *jsontext.Scanner, data []byte, f *frame) error {
	f.reset()
	s.Reset(data)
	first := true
	if !s.EnterObject() {
		return s.Err()
	}
	for {
		key, ok := s.NextKey(&first)
		if !ok {
			break
		}
		switch string(key) {
		case "choices":
			if !s.Null() {
				parseChoices(s, f)
			}
		case "usage":
			if !s.Null() {
				parseUsage(s, &f.usage)
				f.hasUsage = true
			}
		case "id":
			f.id = s.StringOrNull()
		case "model":
			f.model = s.StringOrNull()
		case "error":
			f.hasError = true
			s.Skip()
		default:
			s.Skip()
		}
	}
	return s.End()
}

func parseChoices(s *jsontext.Scanner, f *frame) {
	first := true
	if !s.EnterArray() {
		return
	}
	for pos := 0; s.NextElem(&first); pos++ {
		f.sawChoices = true
		if pos > 0 {
			s.Skip()
			continue
		}
		parseChoice(s, f)
	}
}

func parseChoice(s *jsontext.Scanner, f *frame) {
	first := true
	if s.Null() || !s.EnterObject() {
		return
	}
	for {
		key, ok := s.NextKey(&first)
		if !ok {
			return
		}
		switch string(key) {
		case "delta":
			if !s.Null() {
				parseDelta(s, f)
			}
		case "finish_reason":
			if v := s.StringOrNull(); v != nil {
				f.finish, f.hasFinish = v, true
			}
		default:
			s.Skip()
		}
	}
}

func parseDelta(s *jsontext.Scanner, f *frame) {
	first := true
	if !s.EnterObject() {
		return
	}
	for {
		key, ok := s.NextKey(&first)
		if !ok {
			return
		}
		switch string(key) {
		case "content":
			if v := s.StringOrNull(); len(v) > 0 {
				f.parts = append(f.parts, part{kind: llm.ChunkText, text: v})
			}
		case "reasoning_content", "reasoning":
			if v := s.StringOrNull(); len(v) > 0 {
				f.parts = append(f.parts, part{kind: llm.ChunkThinking, text: v})
			}
		case "tool_calls":
			if !s.Null() {
				parseToolCalls(s, f)
			}
		default:
			s.Skip()
		}
	}
}

func parseToolCalls(s *jsontext.Scanner, f *frame) {
	first := true
	if !s.EnterArray() {
		return
	}
	for pos := 0; s.NextElem(&first); pos++ {
		p := part{kind: llm.ChunkToolCall, index: pos}
		parseToolCall(s, &p)
		f.parts = append(f.parts, p)
	}
}

func parseToolCall(s *jsontext.Scanner, p *part) {
	first := true
	if s.Null() || !s.EnterObject() {
		return
	}
	for {
		key, ok := s.NextKey(&first)
		if !ok {
			return
		}
		switch string(key) {
		case "index":
			if !s.Null() {
				p.index, _ = s.Integer()
			}
		case "id":
			p.id = s.StringOrNull()
		case "function":
			if !s.Null() {
				parseFunction(s, p)
			}
		default:
			s.Skip()
		}
	}
}

func parseFunction(s *jsontext.Scanner, p *part) {
	first := true
	if !s.EnterObject() {
		return
	}
	for {
		key, ok := s.NextKey(&first)
		if !ok {
			return
		}
		switch string(key) {
		case "name":
			p.name = s.StringOrNull()
		case "arguments":
			p.text = argumentsValue(s)
		default:
			s.Skip()
		}
	}
}

// argumentsValue reads function.arguments. OpenAI sends a JSON string; some
// compatible servers send the arguments object itself, which is kept as its
// JSON text.
func argumentsValue(s *jsontext.Scanner) []byte {
	switch s.Peek() {
	case '"':
		v, _ := s.Str()
		return v
	case '{', '[':
		return s.RawValue()
	default:
		s.Skip()
		return nil
	}
}

func parseUsage(s *jsontext.Scanner, u *llm.Usage) {
	first := true
	if !s.EnterObject() {
		return
	}
	for {
		key, ok := s.NextKey(&first)
		if !ok {
			return
		}
		switch string(key) {
		case "prompt_tokens":
			u.PromptTokens = s.IntOrNull()
		case "completion_tokens":
			u.CompletionTokens = s.IntOrNull()
		case "total_tokens":
			u.TotalTokens = s.IntOrNull()
		case "prompt_tokens_details":
			if !s.Null() {
				parseUsageDetails(s, u)
			}
		default:
			s.Skip()
		}
	}
}

func parseUsageDetails(s *jsontext.Scanner, u *llm.Usage) {
	first := true
	if !s.EnterObject() {
		return
	}
	for {
		key, ok := s.NextKey(&first)
		if !ok {
			return
		}
		if string(key) == "cached_tokens" {
			u.CachedTokens = s.IntOrNull()
			continue
		}
		s.Skip()
	}
}
