package llmserver

import (
	"context"
	"testing"

	"github.com/troupehq/troupe/runtime/llm"
)

// Tokens must cost no allocation per delta: only the amortised growth of
// the assembled content and a constant per call.
func TestProviderTokensAllocs(t *testing.T) {
	const n = 100_000
	p := newProviderT(t, one(Tokens(n, "x")))
	req := userRequest("hi", true)
	ctx := context.Background()
	chunks := 0
	sink := func(c llm.Chunk) error {
		chunks++
		return nil
	}
	allocs := testing.AllocsPerRun(5, func() {
		resp, err := p.Stream(ctx, req, sink)
		if err != nil || len(resp.Message.Content) != n {
			t.Fatalf("stream: %v", err)
		}
	})
	if chunks != 6*n {
		t.Errorf("sink saw %d chunks, want %d", chunks, 6*n)
	}
	if allocs > 200 {
		t.Errorf("%.0f allocations for %d deltas, want a small constant", allocs, n)
	}
}

// BenchmarkProviderTokens streams a million one-token deltas per op.
func BenchmarkProviderTokens(b *testing.B) {
	const n = 1_000_000
	p, err := NewProvider(one(Tokens(n, "x")))
	if err != nil {
		b.Fatal(err)
	}
	req := userRequest("hi", true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sink := func(llm.Chunk) error { return nil }
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Stream(ctx, req, sink); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/delta")
}
