package llmserver

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/troupehq/troupe/runtime/llm"
)

func newProviderT(t *testing.T, script Script, opts ...ProviderOption) *Provider {
	t.Helper()
	p, err := NewProvider(script, opts...)
	if err != nil {
		t.Fatalf("new provider: %v", err)
	}
	return p
}

func userRequest(text string, stream bool) llm.Request {
	return llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: text}}, Stream: stream}
}

func TestProviderRejectsBadScript(t *testing.T) {
	_, err := NewProvider(one(Disconnect(), Text("after")))
	if err == nil {
		t.Fatal("NewProvider accepted a step after disconnect")
	}
	if _, err := NewProvider(one(Tokens(-1, "x"))); err == nil {
		t.Fatal("NewProvider accepted a negative token count")
	}
}

func TestProviderCancelDuringDelay(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprint("stream=", stream), func(t *testing.T) {
			p := newProviderT(t, one(Text("early"), Delay(time.Minute), Text("late")))
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(20*time.Millisecond, cancel)
			start := time.Now()
			var chunks []llm.Chunk
			resp, err := p.Stream(ctx, userRequest("hi", stream), func(c llm.Chunk) error {
				chunks = append(chunks, c)
				return nil
			})
			if !errors.Is(err, context.Canceled) || resp != nil {
				t.Fatalf("got %v, %v; want context.Canceled", resp, err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("returned after %s", d)
			}
			want := 0
			if stream {
				want = 1 // "early" was streamed before the delay
			}
			if len(chunks) != want {
				t.Errorf("got %d chunks, want %d", len(chunks), want)
			}
		})
	}
}

func TestProviderCancelBeforeCall(t *testing.T) {
	p := newProviderT(t, Script{Replies: []Reply{Steps(Text("kept"))}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Stream(ctx, userRequest("hi", true), nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if n := len(p.Requests()); n != 0 {
		t.Errorf("recorded %d requests that were never sent", n)
	}
	resp, err := p.Stream(context.Background(), userRequest("hi", true), nil)
	if err != nil || resp.Message.Content != "kept" {
		t.Fatalf("reply was consumed by a canceled call: %v, %v", resp, err)
	}
}

func TestProviderCancelDuringTokens(t *testing.T) {
	p := newProviderT(t, one(Tokens(1_000_000, "x")))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	_, err := p.Stream(ctx, userRequest("hi", true), func(llm.Chunk) error {
		if n++; n == 10 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if n != 10 {
		t.Errorf("sink saw %d chunks, want 10", n)
	}
}

func TestProviderSinkError(t *testing.T) {
	p := newProviderT(t, one(Text("a"), Text("b")))
	boom := errors.New("boom")
	_, err := p.Stream(context.Background(), userRequest("hi", true), func(llm.Chunk) error { return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want boom", err)
	}
	var le *llm.Error
	if errors.As(err, &le) {
		t.Errorf("sink error reported as *llm.Error: %v", err)
	}
}

func TestProviderRecordsRequests(t *testing.T) {
	p := newProviderT(t, Script{Loading: 1, Default: &Reply{Steps: []Step{Text("ok")}}})
	temp := 0.5
	first := llm.Request{
		Model:       "m",
		Messages:    []llm.Message{{Role: llm.RoleSystem, Content: "be brief"}, {Role: llm.RoleUser, Content: "hi"}},
		Tools:       []llm.ToolDef{{Name: "run"}},
		Temperature: &temp,
		Stream:      true,
		Headers:     map[string]string{"X-Test": "1"},
		SessionID:   "s1",
	}
	sent := cloneRequest(first)
	if _, err := p.Stream(context.Background(), first, nil); !llm.IsRetryable(err) {
		t.Fatalf("loading call: got %v, want a retryable error", err)
	}
	// The caller reusing its slices and map must not change the record.
	first.Messages[1].Content = "changed"
	first.Headers["X-Test"] = "2"
	second := userRequest("again", false)
	if _, err := p.Stream(context.Background(), second, nil); err != nil {
		t.Fatal(err)
	}
	got := p.Requests()
	if want := []llm.Request{sent, second}; !reflect.DeepEqual(got, want) {
		t.Fatalf("requests:\n got %+v\nwant %+v", got, want)
	}
	got[0].Messages[0].Content = "mutated copy"
	if p.Requests()[0].Messages[0].Content != "be brief" {
		t.Error("Requests returned the recorder's own slice")
	}
}

func TestProviderWaitRequests(t *testing.T) {
	p := newProviderT(t, one(Text("ok")))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if _, err := p.Stream(ctx, userRequest(fmt.Sprint(i), i%2 == 0), nil); err != nil {
				t.Error(err)
			}
		})
	}
	reqs, err := p.WaitRequests(ctx, 8)
	if err != nil || len(reqs) < 8 {
		t.Fatalf("got %d requests, %v", len(reqs), err)
	}
	wg.Wait()

	short, stop := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer stop()
	if _, err := p.WaitRequests(short, 9); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want a deadline error", err)
	}
}

func TestProviderDistinctIDs(t *testing.T) {
	p := newProviderT(t, one(Text("ok")))
	a, err := p.Stream(context.Background(), userRequest("1", true), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Stream(context.Background(), userRequest("2", false), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.ID == b.ID || a.ID != completionID(0) || b.ID != completionID(1) {
		t.Errorf("ids %q, %q; want completionID(0), completionID(1)", a.ID, b.ID)
	}
}

// failRecorder is a testing.TB that records Errorf instead of failing.
type failRecorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (f *failRecorder) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}

func TestProviderWithTestReportsExhaustion(t *testing.T) {
	tb := &failRecorder{TB: t}
	p := newProviderT(t, Script{Replies: []Reply{Steps(Text("only"))}}, WithTest(tb))
	if _, err := p.Stream(context.Background(), userRequest("1", true), nil); err != nil {
		t.Fatal(err)
	}
	if len(tb.errors) != 0 {
		t.Fatalf("reported %q before the script ran out", tb.errors)
	}
	_, err := p.Stream(context.Background(), userRequest("2", true), nil)
	var le *llm.Error
	if !errors.As(err, &le) || le.Status != 500 {
		t.Fatalf("got %v, want a 500 *llm.Error", err)
	}
	if len(tb.errors) != 1 {
		t.Errorf("reported %q, want one error", tb.errors)
	}
}
