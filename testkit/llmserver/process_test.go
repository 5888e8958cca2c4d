package llmserver

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// The options a program standing in for llama-server builds on
// (testkit/cmd/fake-llama-server): a held load, replies made from the
// request, a wrapper that sees requests first, several API keys.
func TestHoldReplierMiddlewareKeys(t *testing.T) {
	var seen atomic.Int64
	s := startT(t, Script{APIKey: "k1,k2"}, WithHold(),
		WithReplier(func(req map[string]any) Reply {
			msgs, _ := req["messages"].([]any)
			last, _ := msgs[len(msgs)-1].(map[string]any)
			text, _ := last["content"].(string)
			return Steps(Text("echo: " + text))
		}),
		WithMiddleware(func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				seen.Add(1)
				h.ServeHTTP(w, r)
			})
		}))
	for range 3 { // a held load outlasts any count
		if got := do(t, http.MethodGet, s.URL()+"/health", "", nil); got.status != http.StatusServiceUnavailable || !strings.Contains(string(got.body), "Loading model") {
			t.Fatalf("held: %d %s", got.status, got.body)
		}
	}
	s.SetReady()
	if got := do(t, http.MethodGet, s.URL()+"/health", "", nil); got.status != http.StatusOK {
		t.Fatalf("after SetReady: %d %s", got.status, got.body)
	}
	chat := `{"messages":[{"role":"user","content":"hi"}]}`
	if got := do(t, http.MethodPost, s.URL()+"/v1/chat/completions", chat, nil); got.status != http.StatusUnauthorized {
		t.Fatalf("without a key: %d %s", got.status, got.body)
	}
	for _, key := range []string{"k1", "k2"} {
		got := do(t, http.MethodPost, s.URL()+"/v1/chat/completions", chat, map[string]string{"Authorization": "Bearer " + key})
		if got.status != http.StatusOK || !strings.Contains(string(got.body), `"content":"echo: hi"`) {
			t.Fatalf("key %s: %d %s", key, got.status, got.body)
		}
	}
	if n := seen.Load(); n != 7 {
		t.Fatalf("the middleware saw %d requests, want 7", n)
	}
}
