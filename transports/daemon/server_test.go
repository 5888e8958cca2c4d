package daemon

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/troupehq/troupe/transports/rest"
)

// The /acp handler the daemon is given sits behind the same checks as
// REST: a token (any of its three forms) and the Origin and Host rules.
func TestACPRouteIsMountedBehindAuth(t *testing.T) {
	home := t.TempDir()
	var reached atomic.Int32
	acp := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		w.WriteHeader(http.StatusTeapot) // marks the handler as reached
	})
	s, err := Listen(Options{Listen: "127.0.0.1:0", Home: home, API: rest.New(rest.Config{}), ACP: acp})
	if err != nil {
		t.Fatal(err)
	}
	s.Serve()
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	tok, err := os.ReadFile(filepath.Join(home, TokenFile))
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(string(tok))
	get := func(path string, header map[string]string) int {
		req, _ := http.NewRequest("GET", s.URL()+path, nil)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for _, c := range []struct {
		path   string
		header map[string]string
		want   int
	}{
		{"/acp", nil, http.StatusUnauthorized},
		{"/acp", map[string]string{"Sec-WebSocket-Protocol": "acp.v1, hydra-acp-token.wrong"}, http.StatusUnauthorized},
		{"/acp", map[string]string{"Sec-WebSocket-Protocol": "acp.v1, hydra-acp-token." + token}, http.StatusTeapot},
		{"/acp?token=" + token, nil, http.StatusTeapot},
		{"/acp", map[string]string{"Authorization": "Bearer " + token}, http.StatusTeapot},
		{"/acp?token=" + token, map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
		{"/acp?token=" + token, map[string]string{"Origin": s.URL()}, http.StatusTeapot},
	} {
		if got := get(c.path, c.header); got != c.want {
			t.Errorf("GET %s %v: %d, want %d", c.path, c.header, got, c.want)
		}
	}
	if n := reached.Load(); n != 4 {
		t.Fatalf("the ACP handler was reached %d times, want 4", n)
	}
}
