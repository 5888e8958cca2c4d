package fakellama

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// answer is one completion being written, whole or as frames.
type answer struct {
	id, model string
	created   int64
	reply     Reply
	tokens    []string
	finish    string
	prompt    int
}

type usage struct {
	CompletionTokens int `json:"completion_tokens"`
	PromptTokens     int `json:"prompt_tokens"`
	TotalTokens      int `json:"total_tokens"`
	Details          struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

type timings struct {
	CacheN     int     `json:"cache_n"`
	PromptN    int     `json:"prompt_n"`
	PromptMS   float64 `json:"prompt_ms"`
	PredictedN int     `json:"predicted_n"`
	PredictedM float64 `json:"predicted_ms"`
}

func (a answer) usage() *usage {
	return &usage{CompletionTokens: len(a.tokens), PromptTokens: a.prompt, TotalTokens: a.prompt + len(a.tokens)}
}

func (a answer) timings() *timings {
	return &timings{PromptN: a.prompt, PromptMS: 0.1, PredictedN: len(a.tokens), PredictedM: 0.1}
}

type wireMessage struct {
	Role      string     `json:"role"`
	Content   *string    `json:"content"`
	ToolCalls []wireCall `json:"tool_calls,omitempty"`
}

type wireCall struct {
	Index    *int   `json:"index,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
	ID string `json:"id,omitempty"`
}

// whole is the non-streaming body, keys in the real server's order.
func (a answer) whole() any {
	content := strings.Join(a.tokens, "")
	msg := wireMessage{Role: "assistant", Content: &content}
	if len(a.reply.ToolCalls) > 0 {
		msg.ToolCalls = make([]wireCall, len(a.reply.ToolCalls))
		for i, c := range a.reply.ToolCalls {
			msg.ToolCalls[i].Type, msg.ToolCalls[i].ID = "function", a.callID(i)
			msg.ToolCalls[i].Function.Name, msg.ToolCalls[i].Function.Arguments = c.Name, c.Arguments
		}
		if content == "" {
			msg.Content = nil
		}
	}
	return struct {
		Choices           []wholeChoice `json:"choices"`
		Created           int64         `json:"created"`
		Model             string        `json:"model"`
		SystemFingerprint string        `json:"system_fingerprint"`
		Object            string        `json:"object"`
		Usage             *usage        `json:"usage"`
		ID                string        `json:"id"`
		Timings           *timings      `json:"timings"`
	}{
		Choices: []wholeChoice{{FinishReason: a.finish, Message: msg}},
		Created: a.created, Model: a.model, SystemFingerprint: "b0-fake", Object: "chat.completion",
		Usage: a.usage(), ID: a.id, Timings: a.timings(),
	}
}

func (a answer) callID(i int) string {
	return a.id[len("chatcmpl-"):len("chatcmpl-")+8] + string(rune('a'+i))
}

type wholeChoice struct {
	FinishReason string      `json:"finish_reason"`
	Index        int         `json:"index"`
	Message      wireMessage `json:"message"`
}

type frame struct {
	Choices           []frameChoice `json:"choices"`
	Created           int64         `json:"created"`
	ID                string        `json:"id"`
	Model             string        `json:"model"`
	SystemFingerprint string        `json:"system_fingerprint"`
	Object            string        `json:"object"`
	Usage             *usage        `json:"usage,omitempty"`
	Timings           *timings      `json:"timings,omitempty"`
}

type frameChoice struct {
	FinishReason *string `json:"finish_reason"`
	Index        int     `json:"index"`
	Delta        any     `json:"delta"`
}

func (a answer) frame(finish *string, delta any) frame {
	return frame{Choices: []frameChoice{{FinishReason: finish, Delta: delta}}, Created: a.created, ID: a.id,
		Model: a.model, SystemFingerprint: "b0-fake", Object: "chat.completion.chunk"}
}

// stream writes the frames the 2026 llama-server writes: a role chunk, one
// chunk per token, one per tool call's name then its arguments, the finish
// chunk (with timings unless usage was asked for), the usage chunk, [DONE].
func (s *Server) stream(w http.ResponseWriter, r *http.Request, a answer, includeUsage bool) {
	h := w.Header()
	h.Set("X-Accel-Buffering", "no")
	h.Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(v any) bool {
		b, _ := json.Marshal(v) // frames are plain structs
		if _, err := w.Write(append(append([]byte("data: "), b...), '\n', '\n')); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return r.Context().Err() == nil
	}
	if !send(a.frame(nil, wireMessage{Role: "assistant"})) {
		return
	}
	for _, tok := range a.tokens {
		if s.opts.TokenDelay > 0 {
			select {
			case <-time.After(s.opts.TokenDelay):
			case <-r.Context().Done():
				return
			}
		}
		if !send(a.frame(nil, map[string]any{"content": tok})) {
			return
		}
	}
	for i, c := range a.reply.ToolCalls {
		first := wireCall{Index: &i, Type: "function", ID: a.callID(i)}
		first.Function.Name = c.Name
		rest := wireCall{Index: &i}
		rest.Function.Arguments = c.Arguments
		if !send(a.frame(nil, map[string]any{"tool_calls": []wireCall{first}})) ||
			!send(a.frame(nil, map[string]any{"tool_calls": []wireCall{rest}})) {
			return
		}
	}
	finish := a.frame(&a.finish, map[string]any{})
	if !includeUsage {
		finish.Timings = a.timings()
	}
	if !send(finish) {
		return
	}
	if includeUsage {
		last := a.frame(nil, nil)
		last.Choices = []frameChoice{}
		last.Usage, last.Timings = a.usage(), a.timings()
		if !send(last) {
			return
		}
	}
	_, _ = w.Write([]byte("data: [DONE]\n\n"))
	if flusher != nil {
		flusher.Flush()
	}
}
