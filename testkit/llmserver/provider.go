package llmserver

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/troupehq/troupe/runtime/llm"
)

// Provider plays a Script in process: an llm.Provider that delivers what
// runtime/llm/openai would deliver if the same script were served by a
// Server, without HTTP. It is safe for concurrent use.
type Provider struct {
	script compiled
	cfg    providerConfig
	calls  *callLog

	mu      sync.Mutex
	loading int // 503 answers still to give
	next    int // next entry of script.replies
	chats   int // calls that asked for a reply, for ids
}

var _ llm.Provider = (*Provider)(nil)

type providerConfig struct {
	tb       TB
	noRecord bool
}

// ProviderOption configures NewProvider.
type ProviderOption func(*providerConfig)

// WithTest makes a call that finds the script exhausted fail t, as a
// server made by New does.
func WithTest(t TB) ProviderOption { return func(c *providerConfig) { c.tb = t } }

// WithoutRecording keeps no request: Requests then returns none. For
// benchmarks, whose millions of requests would otherwise be held (and
// their memory measured) until the provider goes.
func WithoutRecording() ProviderOption { return func(c *providerConfig) { c.noRecord = true } }

// NewProvider checks the script and returns a Provider that plays it.
func NewProvider(script Script, opts ...ProviderOption) (*Provider, error) {
	var cfg providerConfig
	for _, o := range opts {
		o(&cfg)
	}
	c, err := compile(script)
	if err != nil {
		return nil, fmt.Errorf("check script: %w", err)
	}
	return &Provider{script: c, cfg: cfg, calls: newCallLog(), loading: c.script.Loading}, nil
}

// Stream implements llm.Provider. Replies are taken in call order, then
// Script.Default; errors are classified as runtime/llm/openai classifies the
// server's answers, and wrapped the way it wraps them.
func (p *Provider) Stream(ctx context.Context, req llm.Request, sink func(llm.Chunk) error) (*llm.Response, error) {
	// A request canceled before it is sent never reaches a server.
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("chat completions: %w", err)
	}
	if !p.cfg.noRecord {
		p.calls.add(req)
	}
	pl, n, err := p.take()
	if err != nil {
		return nil, fmt.Errorf("chat completions: %w", err)
	}
	model := cmp.Or(req.Model, p.script.script.Model)
	pb := &playback{
		ctx:  ctx,
		plan: pl,
		asm:  llm.Assembler{Sink: sink, ID: completionID(n), Model: model},
	}
	if req.Stream {
		err = pb.stream()
	} else {
		err = pb.complete()
	}
	if err != nil {
		return nil, fmt.Errorf("chat completions: %w", err)
	}
	return pb.asm.Response(), nil
}

// take hands out replies as Server.takeReply does, after the 503s that
// Script.Loading asks for.
func (p *Provider) take() (plan, int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.loading > 0 {
		p.loading--
		return plan{}, 0, httpFailure(APIError{Status: http.StatusServiceUnavailable, Message: "Loading model"})
	}
	n := p.chats
	p.chats++
	switch {
	case p.next < len(p.script.replies):
		p.next++
		return p.script.replies[p.next-1], n, nil
	case p.script.fallback != nil:
		return *p.script.fallback, n, nil
	}
	msg := fmt.Sprintf("llmserver: script exhausted: chat request %d has no reply (the script has %d replies and no default)",
		n+1, len(p.script.replies))
	if p.cfg.tb != nil {
		p.cfg.tb.Errorf("%s", msg)
	}
	return plan{}, n, httpFailure(APIError{Status: http.StatusInternalServerError, Message: msg})
}
