package fakellama

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

type chatRequest struct {
	Messages      json.RawMessage `json:"messages"`
	Stream        bool            `json:"stream"`
	MaxTokens     int             `json:"max_tokens"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text is a message's content as plain text: a string, or the text parts
// of an array of content parts.
func (m message) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &parts) // anything else carries no text
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "read body: "+err.Error())
		return
	}
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusInternalServerError, "[json.exception.parse_error.101] "+err.Error())
		return
	}
	var msgs []message
	if err := json.Unmarshal(req.Messages, &msgs); err != nil {
		writeError(w, http.StatusBadRequest, "Expected 'messages' to be an array")
		return
	}
	prompt := promptTokens(msgs)
	if prompt > s.slotCtx() {
		writeContextError(w, prompt, s.slotCtx())
		return
	}

	n := int(s.served.Add(1))
	if s.opts.OnCompletion != nil {
		s.opts.OnCompletion(n)
	}
	reply := s.nextReply(msgs)
	if reply.Status != 0 && reply.Status != http.StatusOK {
		writeError(w, reply.Status, reply.Content)
		return
	}
	s.mu.Lock()
	s.running++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.running--
		s.mu.Unlock()
	}()

	tokens, finish := tokenize(reply.Content), "stop"
	if req.MaxTokens > 0 && len(tokens) > req.MaxTokens {
		tokens, finish = tokens[:req.MaxTokens], "length"
	}
	if len(reply.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	a := answer{id: completionID(), created: time.Now().Unix(), model: s.opts.modelID(),
		reply: reply, tokens: tokens, finish: finish, prompt: prompt}
	if req.Stream {
		s.stream(w, r, a, req.StreamOptions.IncludeUsage)
		return
	}
	writeJSON(w, a.whole())
}

// nextReply takes the next scripted reply, else echoes the last user text.
func (s *Server) nextReply(msgs []message) Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next < len(s.opts.Replies) {
		s.next++
		return s.opts.Replies[s.next-1]
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return Reply{Content: msgs[i].text()}
		}
	}
	return Reply{}
}

// tokenize splits text into word pieces that keep their leading space
// (" zes"), the way llama-server's deltas look.
func tokenize(text string) []string {
	var out []string
	start := 0
	for i := 1; i < len(text); i++ {
		if text[i] == ' ' && text[i-1] != ' ' {
			out = append(out, text[start:i])
			start = i
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

// promptTokens approximates ChatML's count: the words plus four per message.
func promptTokens(msgs []message) int {
	n := 0
	for _, m := range msgs {
		n += 4 + len(strings.Fields(m.text()))
	}
	return n
}

func writeContextError(w http.ResponseWriter, prompt, ctx int) {
	b, _ := json.Marshal(map[string]any{"error": struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Type    string `json:"type"`
		NPrompt int    `json:"n_prompt_tokens"`
		NCtx    int    `json:"n_ctx"`
	}{400, fmt.Sprintf("request (%d tokens) exceeds the available context size (%d tokens), try increasing it", prompt, ctx),
		"exceed_context_size_error", prompt, ctx}})
	w.Header().Set("Connection", "close")
	writeJSONBytes(w, http.StatusBadRequest, b)
}
