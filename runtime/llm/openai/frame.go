package openai

import "github.com/troupehq/troupe/runtime/llm"

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
func parseFrame(s *scanner, data []byte, f *frame) error {
	f.reset()
	s.reset(data)
	first := true
	if !s.enterObject() {
		return s.err
	}
	for {
		key, ok := s.nextKey(&first)
		if !ok {
			break
		}
		switch string(key) {
		case "choices":
			if !s.null() {
				parseChoices(s, f)
			}
		case "usage":
			if !s.null() {
				parseUsage(s, &f.usage)
				f.hasUsage = true
			}
		case "id":
			f.id = s.stringOrNull()
		case "model":
			f.model = s.stringOrNull()
		case "error":
			f.hasError = true
			s.skip()
		default:
			s.skip()
		}
	}
	if s.err == nil && s.peek() != 0 {
		s.fail()
	}
	return s.err
}

func (s *scanner) stringOrNull() []byte {
	if s.null() {
		return nil
	}
	if s.peek() != '"' {
		s.skip()
		return nil
	}
	v, _ := s.str()
	return v
}

func parseChoices(s *scanner, f *frame) {
	first := true
	if !s.enterArray() {
		return
	}
	for pos := 0; s.nextElem(&first); pos++ {
		f.sawChoices = true
		if pos > 0 {
			s.skip()
			continue
		}
		parseChoice(s, f)
	}
}

func parseChoice(s *scanner, f *frame) {
	first := true
	if s.null() || !s.enterObject() {
		return
	}
	for {
		key, ok := s.nextKey(&first)
		if !ok {
			return
		}
		switch string(key) {
		case "delta":
			if !s.null() {
				parseDelta(s, f)
			}
		case "finish_reason":
			if v := s.stringOrNull(); v != nil {
				f.finish, f.hasFinish = v, true
			}
		default:
			s.skip()
		}
	}
}

func parseDelta(s *scanner, f *frame) {
	first := true
	if !s.enterObject() {
		return
	}
	for {
		key, ok := s.nextKey(&first)
		if !ok {
			return
		}
		switch string(key) {
		case "content":
			if v := s.stringOrNull(); len(v) > 0 {
				f.parts = append(f.parts, part{kind: llm.ChunkText, text: v})
			}
		case "reasoning_content", "reasoning":
			if v := s.stringOrNull(); len(v) > 0 {
				f.parts = append(f.parts, part{kind: llm.ChunkThinking, text: v})
			}
		case "tool_calls":
			if !s.null() {
				parseToolCalls(s, f)
			}
		default:
			s.skip()
		}
	}
}

func parseToolCalls(s *scanner, f *frame) {
	first := true
	if !s.enterArray() {
		return
	}
	for pos := 0; s.nextElem(&first); pos++ {
		p := part{kind: llm.ChunkToolCall, index: pos}
		parseToolCall(s, &p)
		f.parts = append(f.parts, p)
	}
}

func parseToolCall(s *scanner, p *part) {
	first := true
	if s.null() || !s.enterObject() {
		return
	}
	for {
		key, ok := s.nextKey(&first)
		if !ok {
			return
		}
		switch string(key) {
		case "index":
			if !s.null() {
				p.index, _ = s.integer()
			}
		case "id":
			p.id = s.stringOrNull()
		case "function":
			if !s.null() {
				parseFunction(s, p)
			}
		default:
			s.skip()
		}
	}
}

func parseFunction(s *scanner, p *part) {
	first := true
	if !s.enterObject() {
		return
	}
	for {
		key, ok := s.nextKey(&first)
		if !ok {
			return
		}
		switch string(key) {
		case "name":
			p.name = s.stringOrNull()
		case "arguments":
			p.text = argumentsValue(s)
		default:
			s.skip()
		}
	}
}

// argumentsValue reads function.arguments. OpenAI sends a JSON string; some
// compatible servers send the arguments object itself, which is kept as its
// JSON text.
func argumentsValue(s *scanner) []byte {
	switch s.peek() {
	case '"':
		v, _ := s.str()
		return v
	case '{', '[':
		return s.rawValue()
	default:
		s.skip()
		return nil
	}
}

func parseUsage(s *scanner, u *llm.Usage) {
	first := true
	if !s.enterObject() {
		return
	}
	for {
		key, ok := s.nextKey(&first)
		if !ok {
			return
		}
		switch string(key) {
		case "prompt_tokens":
			u.PromptTokens = s.intOrNull()
		case "completion_tokens":
			u.CompletionTokens = s.intOrNull()
		case "total_tokens":
			u.TotalTokens = s.intOrNull()
		case "prompt_tokens_details":
			if !s.null() {
				parseUsageDetails(s, u)
			}
		default:
			s.skip()
		}
	}
}

func parseUsageDetails(s *scanner, u *llm.Usage) {
	first := true
	if !s.enterObject() {
		return
	}
	for {
		key, ok := s.nextKey(&first)
		if !ok {
			return
		}
		if string(key) == "cached_tokens" {
			u.CachedTokens = s.intOrNull()
			continue
		}
		s.skip()
	}
}

func (s *scanner) intOrNull() int {
	if s.null() {
		return 0
	}
	if c := s.peek(); c != '-' && (c < '0' || c > '9') {
		s.skip()
		return 0
	}
	n, _ := s.integer()
	return n
}
