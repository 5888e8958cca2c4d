package llmserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
)

// ErrClosed is returned by the wait methods once the server is closed.
var ErrClosed = errors.New("llmserver: server closed")

// Reply indexes recorded in Request.Reply besides positions in
// Script.Replies.
const (
	// NoReply marks a request that took no scripted reply: not a chat
	// request, or one rejected before a reply was taken.
	NoReply = -1
	// DefaultReply marks a request answered by Script.Default.
	DefaultReply = -2
)

// Outcome is how the server's answer to a request ended.
type Outcome string

const (
	// OutcomePending: the server is still answering.
	OutcomePending Outcome = ""
	// OutcomeOK: a complete 200 response was written.
	OutcomeOK Outcome = "ok"
	// OutcomeHTTPError: an error status was written, scripted or not.
	OutcomeHTTPError Outcome = "http_error"
	// OutcomeStreamError: a scripted mid-stream error ended the stream.
	OutcomeStreamError Outcome = "stream_error"
	// OutcomeDisconnected: a scripted disconnect cut the connection.
	OutcomeDisconnected Outcome = "disconnected"
	// OutcomeCanceled: the client went away, or the server closed, before
	// the answer was complete.
	OutcomeCanceled Outcome = "canceled"
)

// Request is what the server recorded about one request. Body and JSON are
// shared between copies; treat them as read-only.
type Request struct {
	// Seq is the 0-based arrival position among all requests.
	Seq      int
	Method   string
	Path     string
	RawQuery string
	Header   http.Header
	Body     []byte
	// JSON is the body parsed as a JSON object, nil if it is not one.
	JSON map[string]any
	// Reply is the index of the Script.Replies entry used, or NoReply or
	// DefaultReply.
	Reply   int
	Outcome Outcome
}

// IsChat reports whether the request asked for a scripted reply: a chat
// completion, or a message in one of the native wire formats (Gemini's
// generateContent, Anthropic's messages directly, on Bedrock or on Vertex).
// The Responses API's requests are told apart by IsResponses.
func (r Request) IsChat() bool {
	return r.Method == http.MethodPost && (r.Path == "/v1/chat/completions" || r.Path == "/chat/completions" ||
		isGeminiPath(r.Path) || isAnthropicPath(r.Path))
}

// Decode unmarshals the request body into v, for typed assertions.
func (r Request) Decode(v any) error {
	if err := json.Unmarshal(r.Body, v); err != nil {
		return fmt.Errorf("decode request %d body: %w", r.Seq, err)
	}
	return nil
}

// recorder keeps the requests and wakes waiters on every change.
type recorder struct {
	mu      sync.Mutex
	reqs    []Request
	changed chan struct{} // closed and replaced on every change
	closed  bool
}

func newRecorder() *recorder {
	return &recorder{changed: make(chan struct{})}
}

func (rc *recorder) notifyLocked() {
	close(rc.changed)
	rc.changed = make(chan struct{})
}

func (rc *recorder) add(r Request) int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	r.Seq = len(rc.reqs)
	rc.reqs = append(rc.reqs, r)
	rc.notifyLocked()
	return r.Seq
}

func (rc *recorder) update(seq int, fn func(*Request)) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	fn(&rc.reqs[seq])
	rc.notifyLocked()
}

func (rc *recorder) get(seq int) Request {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.reqs[seq].clone()
}

func (rc *recorder) close() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.closed = true
	rc.notifyLocked()
}

func (rc *recorder) snapshot(keep func(Request) bool) []Request {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []Request
	for _, r := range rc.reqs {
		if keep(r) {
			out = append(out, r.clone())
		}
	}
	return out
}

// wait blocks until cond holds over the recorded requests.
func (rc *recorder) wait(ctx context.Context, cond func([]Request) bool) error {
	for {
		rc.mu.Lock()
		ok, closed, changed := cond(rc.reqs), rc.closed, rc.changed
		rc.mu.Unlock()
		if ok {
			return nil
		}
		if closed {
			return ErrClosed
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}

func (r Request) clone() Request {
	r.Header = r.Header.Clone()
	return r
}

func all(Request) bool { return true }

// Requests returns every request received so far, in arrival order.
func (s *Server) Requests() []Request { return s.rec.snapshot(all) }

// ChatRequests returns the chat-completion requests received so far.
func (s *Server) ChatRequests() []Request { return s.rec.snapshot(Request.IsChat) }

// WaitRequests waits until at least n requests have arrived and returns
// them all.
func (s *Server) WaitRequests(ctx context.Context, n int) ([]Request, error) {
	return s.waitCount(ctx, n, all)
}

// WaitChatRequests waits until at least n chat-completion requests have
// arrived and returns them.
func (s *Server) WaitChatRequests(ctx context.Context, n int) ([]Request, error) {
	return s.waitCount(ctx, n, Request.IsChat)
}

func (s *Server) waitCount(ctx context.Context, n int, keep func(Request) bool) ([]Request, error) {
	err := s.rec.wait(ctx, func(reqs []Request) bool {
		got := 0
		for _, r := range reqs {
			if keep(r) {
				got++
			}
		}
		return got >= n
	})
	if err != nil {
		return nil, fmt.Errorf("wait for %d requests (have %d): %w", n, len(s.rec.snapshot(keep)), err)
	}
	return s.rec.snapshot(keep), nil
}

// WaitDone waits until the server has finished answering the request with
// the given Seq and returns its record, Outcome set.
func (s *Server) WaitDone(ctx context.Context, seq int) (Request, error) {
	err := s.rec.wait(ctx, func(reqs []Request) bool {
		return seq < len(reqs) && reqs[seq].Outcome != OutcomePending
	})
	if err != nil {
		return Request{}, fmt.Errorf("wait for request %d to finish: %w", seq, err)
	}
	return s.rec.get(seq), nil
}
