package main

import (
	"bytes"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// scaleFile is the small file every session's first answer reads, in the
// sessions' working directory (a read, not bash, so 10,000 sessions spawn
// no process and ask no permission).
const scaleFile = "small.txt"

// scaleModel is the model side of BenchmarkDaemonScale: its base URL, and
// the instant the probe's stamps count from.
type scaleModel struct {
	url   string
	clock time.Time
}

// scaleLLM serves the scripted LLM over HTTP for many sessions at once: a
// session's first request (no assistant or tool message yet) is answered
// by a server whose reply calls read, every other request by one whose
// reply is text; each reply's deltas gap apart, or at once for 0. A script's replies are consumed in arrival order across
// sessions, so the choice is made from the request itself, in front of two
// scripted servers. The probe session's requests (probeMarker in their
// prompt) get the probe's stamped reply instead (probeReply).
func scaleLLM(b testing.TB, deltas int, gap time.Duration) scaleModel {
	b.Helper()
	clock := time.Now()
	tool := llmserver.Steps(append(pacedTokens(deltas, gap), llmserver.ToolCall("", "read", `{"path":"`+scaleFile+`"}`))...)
	text := llmserver.Steps(pacedTokens(deltas, gap)...)
	withTool := proxyTo(b, llmserver.New(b, llmserver.Script{Model: "tiny", Default: &tool}))
	textOnly := proxyTo(b, llmserver.New(b, llmserver.Script{Model: "tiny", Default: &text}))
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(probeMarker)) {
			probeReply(w, r, clock)
			return
		}
		if bytes.Contains(body, []byte(`"role":"assistant"`)) || bytes.Contains(body, []byte(`"role":"tool"`)) {
			textOnly.ServeHTTP(w, r)
			return
		}
		withTool.ServeHTTP(w, r)
	}))
	b.Cleanup(front.Close)
	return scaleModel{url: front.URL, clock: clock}
}

// pacedTokens are an answer's deltas one-token "x" each: all at once, or
// gap apart (a model's pace rather than flat out).
func pacedTokens(deltas int, gap time.Duration) []llmserver.Step {
	if gap <= 0 {
		return []llmserver.Step{llmserver.Tokens(deltas, "x")}
	}
	steps := make([]llmserver.Step, 0, 2*deltas)
	for i := range deltas {
		if i > 0 {
			steps = append(steps, llmserver.Delay(gap))
		}
		steps = append(steps, llmserver.Tokens(1, "x"))
	}
	return steps
}

// proxyTo forwards to srv over a bounded pool: the benchmark's process
// holds the daemon's connections, the pool's and the servers' ends, and
// its file limit is 20,000.
func proxyTo(b testing.TB, srv *llmserver.Server) *httputil.ReverseProxy {
	u, err := url.Parse(srv.URL())
	testkit.NoError(b, err)
	p := httputil.NewSingleHostReverseProxy(u)
	p.Transport = &http.Transport{MaxConnsPerHost: 1000, MaxIdleConnsPerHost: 1000}
	// Closing the servers at the end cancels nothing still wanted.
	p.ErrorLog = log.New(io.Discard, "", 0)
	b.Cleanup(p.Transport.(*http.Transport).CloseIdleConnections)
	return p
}
