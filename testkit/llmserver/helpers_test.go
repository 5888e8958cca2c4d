package llmserver

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// fixedNow is the "created" of the llama-server fixtures.
var fixedNow = time.Unix(1795339250, 0)

func fixedClock() time.Time { return fixedNow }

type response struct {
	status  int
	header  http.Header
	body    []byte
	readErr error
}

// do sends one request on a fresh connection, so a scripted disconnect in
// one test cannot touch another, and reads the whole answer.
func do(t *testing.T, method, url, body string, header map[string]string) response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return response{readErr: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: b, readErr: err}
}

func postChat(t *testing.T, s *Server, body string) response {
	t.Helper()
	return do(t, http.MethodPost, s.URL()+"/v1/chat/completions", body, nil)
}

func startT(t *testing.T, script Script, opts ...Option) *Server {
	t.Helper()
	s, err := Start(script, append([]Option{WithClock(fixedClock)}, opts...)...)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

func waitCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}
