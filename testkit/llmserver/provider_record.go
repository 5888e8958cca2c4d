package llmserver

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/troupehq/troupe/runtime/llm"
)

// callLog keeps the requests a Provider received and wakes waiters on
// every new one.
type callLog struct {
	mu      sync.Mutex
	reqs    []llm.Request
	changed chan struct{} // closed and replaced on every change
}

func newCallLog() *callLog { return &callLog{changed: make(chan struct{})} }

func (l *callLog) add(r llm.Request) {
	r = cloneRequest(r)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reqs = append(l.reqs, r)
	close(l.changed)
	l.changed = make(chan struct{})
}

func (l *callLog) snapshot() []llm.Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]llm.Request, len(l.reqs))
	for i, r := range l.reqs {
		out[i] = cloneRequest(r)
	}
	return out
}

// cloneRequest copies the slices and map a caller might reuse after the
// call (an engine appending to its history, say); messages, tools and the
// strings in them are shared.
func cloneRequest(r llm.Request) llm.Request {
	r.Messages = slices.Clone(r.Messages)
	r.Tools = slices.Clone(r.Tools)
	r.Headers = maps.Clone(r.Headers)
	return r
}

// Requests returns every request received so far, in call order,
// including those answered by an error.
func (p *Provider) Requests() []llm.Request { return p.calls.snapshot() }

// WaitRequests waits until at least n requests have arrived and returns
// them all.
func (p *Provider) WaitRequests(ctx context.Context, n int) ([]llm.Request, error) {
	l := p.calls
	for {
		l.mu.Lock()
		have, changed := len(l.reqs), l.changed
		l.mu.Unlock()
		if have >= n {
			return l.snapshot(), nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("wait for %d requests (have %d): %w", n, have, ctx.Err())
		case <-changed:
		}
	}
}
