package llmserver

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"
)

// exchange is one chat-completion answer being written.
type exchange struct {
	s            *Server
	w            http.ResponseWriter
	rc           *http.ResponseController
	p            plan
	id           string
	created      int64
	model        string
	includeUsage bool
	started      bool
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request, seq int) answer {
	rec := s.rec.get(seq)
	body, err := parseObject(rec.Body)
	if err != nil {
		return s.fail(w, APIError{Status: http.StatusInternalServerError, Message: fmt.Sprintf("parse error: %v", err)})
	}
	if _, ok := body["messages"].([]any); !ok {
		return s.fail(w, APIError{Status: http.StatusBadRequest, Message: "Expected 'messages' to be an array"})
	}
	p, reply, n, err := s.takeReply(body)
	// Recorded at once so a test that sees the request in flight knows
	// which reply it is getting.
	s.rec.update(seq, func(req *Request) { req.Reply = reply })
	if err != nil {
		s.reportf("%v", err)
		return s.fail(w, APIError{Status: http.StatusInternalServerError, Message: err.Error()})
	}
	x := &exchange{
		s:       s,
		w:       w,
		rc:      http.NewResponseController(w),
		p:       p,
		id:      completionID(n),
		created: s.cfg.now().Unix(),
		model:   s.script.script.Model,
	}
	if m, ok := body["model"].(string); ok && m != "" {
		x.model = m
	}
	if opts, ok := body["stream_options"].(map[string]any); ok {
		x.includeUsage, _ = opts["include_usage"].(bool)
	}
	var out Outcome
	if stream, _ := body["stream"].(bool); stream {
		out = x.stream(r.Context())
	} else {
		out = x.complete(r.Context())
	}
	return answer{outcome: out, reply: reply}
}

// takeReply hands out replies in arrival order, then the replier's (made
// from the request body) or the default. n counts the chat requests
// that got one, and seeds their completion ids.
func (s *Server) takeReply(body map[string]any) (p plan, reply, n int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n = s.chats
	s.chats++
	switch {
	case s.next < len(s.script.replies):
		reply = s.next
		s.next++
		return s.script.replies[reply], reply, n, nil
	case s.cfg.replier != nil:
		p, err := compileReply(s.cfg.replier(body))
		if err != nil {
			return plan{}, DefaultReply, n, fmt.Errorf("llmserver: the reply made for chat request %d: %w", n+1, err)
		}
		return p, DefaultReply, n, nil
	case s.script.fallback != nil:
		return *s.script.fallback, DefaultReply, n, nil
	}
	return plan{}, NoReply, n, fmt.Errorf("llmserver: script exhausted: chat request %d has no reply (the script has %d replies and no default)",
		n+1, len(s.script.replies))
}

// completionID is "chatcmpl-" and 32 letters and digits like llama-server's,
// but derived from n so that reruns produce the same bytes.
func completionID(n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	rng := rand.New(rand.NewPCG(uint64(n), 0x6c6c6d7365727672))
	b := []byte("chatcmpl-")
	for range 32 {
		b = append(b, alphabet[rng.IntN(len(alphabet))])
	}
	return string(b)
}

// parseObject returns encoding/json's own error, which the chat handler
// sends to the client the way llama-server sends its parser's message.
func parseObject(data []byte) (map[string]any, error) {
	var obj map[string]any
	err := json.Unmarshal(data, &obj)
	return obj, err
}

// sleep waits d unless ctx ends first.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// cut closes the connection under the response. It flushes nothing itself:
// every frame was flushed when written.
func (x *exchange) cut() Outcome {
	conn, _, err := x.rc.Hijack()
	if err != nil {
		// HTTP/2 cannot be hijacked; ending the handler is the nearest thing.
		x.s.cfg.log.Warn("llmserver cannot cut the connection", "err", err)
		return OutcomeDisconnected
	}
	_ = conn.Close() // the point is to break the connection; nothing to report
	return OutcomeDisconnected
}
