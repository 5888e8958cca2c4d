package llmserver

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// streamUntil starts a streaming request and returns once a line containing
// marker has arrived, leaving the response open.
func streamUntil(t *testing.T, ctx context.Context, s *Server, body, marker string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/v1/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(resp.Body)
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended before %q: %v", marker, err)
		}
		if strings.Contains(line, marker) {
			return resp
		}
	}
}

func TestClientCancelStopsWriter(t *testing.T) {
	many := []Step{Text("first")}
	for i := range 2000 {
		many = append(many, Delay(time.Millisecond), Text(fmt.Sprint(i)))
	}
	cases := map[string]Reply{
		"long delay":  Steps(Text("first"), Delay(time.Minute), Text("never")),
		"many chunks": Steps(many...),
	}
	for name, reply := range cases {
		t.Run(name, func(t *testing.T) {
			s := startT(t, Script{Replies: []Reply{reply}})
			ctx, cancel := context.WithCancel(context.Background())
			resp := streamUntil(t, ctx, s, streamReq, `"first"`)
			defer resp.Body.Close()
			start := time.Now()
			cancel()
			r, err := s.WaitDone(waitCtx(t), 0)
			if err != nil {
				t.Fatal(err)
			}
			if r.Outcome != OutcomeCanceled {
				t.Errorf("outcome %q, want canceled", r.Outcome)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("the server kept writing for %s after the client left", d)
			}
		})
	}
}

func TestClientTimeoutDuringNonStreamingDelay(t *testing.T) {
	s := startT(t, Script{Replies: []Reply{Steps(Delay(time.Minute), Text("late"))}})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/v1/chat/completions", strings.NewReader(plainReq))
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	if resp, err := client.Do(req); err == nil {
		resp.Body.Close()
		t.Fatal("request succeeded, want a timeout")
	}
	r, err := s.WaitDone(waitCtx(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != OutcomeCanceled {
		t.Errorf("outcome %q, want canceled", r.Outcome)
	}
}

func TestCloseEndsRepliesInProgress(t *testing.T) {
	before := runtime.NumGoroutine()
	s, err := Start(Script{Default: &Reply{Steps: []Step{Text("first"), Delay(time.Minute)}}})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 3 {
		resp := streamUntil(t, context.Background(), s, streamReq, `"first"`)
		wg.Go(func() {
			defer resp.Body.Close()
			_, _ = bufio.NewReader(resp.Body).ReadString(0) // until the server goes
		})
	}
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Close took %s", d)
	}
	for _, r := range s.Requests() {
		if r.Outcome != OutcomeCanceled {
			t.Errorf("request %d outcome %q after Close, want canceled", r.Seq, r.Outcome)
		}
	}
	wg.Wait()

	// Close returned after every handler; what may linger briefly are the
	// client's and net/http's connection goroutines.
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines after Close, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
	if resp := do(t, http.MethodGet, s.URL()+"/health", "", nil); resp.readErr == nil {
		t.Error("a closed server still answers")
	}
}

// tbRecorder is a real testing.TB that also keeps what New reports.
type tbRecorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *tbRecorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestExhaustedScript(t *testing.T) {
	tb := &tbRecorder{TB: t}
	s := New(tb, Script{Replies: []Reply{Steps(Text("only"))}}, WithClock(fixedClock))
	if got := postChat(t, s, streamReq); got.status != http.StatusOK {
		t.Fatalf("first request: status %d", got.status)
	}
	got := postChat(t, s, streamReq)
	want := `{"error":{"code":500,"message":"llmserver: script exhausted: chat request 2 has no reply (the script has 1 replies and no default)","type":"server_error"}}`
	if got.status != http.StatusInternalServerError || string(got.body) != want {
		t.Errorf("status %d body %s\nwant 500 %s", got.status, got.body, want)
	}
	if _, err := s.WaitDone(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if len(tb.errs) != 1 || !strings.Contains(tb.errs[0], "script exhausted") {
		t.Errorf("New reported %q, want the exhaustion", tb.errs)
	}
}
