package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// BenchmarkDaemonSessions: 100 clients at once, each on its own WebSocket
// to the daemon's /acp, create a session and prompt it; the wall time is
// from the first dial to the last prompt's answer (every session's events
// committed, the reply streamed), on a daemon already started.
func BenchmarkDaemonSessions(b *testing.B) {
	const sessions = 100
	reply := llmserver.Steps(llmserver.Text("done"))
	srv := llmserver.New(b, llmserver.Script{Model: "tiny", Default: &reply})
	env := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	// A benchmark measures the daemon binary, as BENCHMARKS.md's figures do.
	d := startDaemonBinary(b, b.TempDir(), env, "--provider", "openai", "--model", "tiny")
	url := "ws" + strings.TrimPrefix(d.url, "http") + "/acp"
	var walls []time.Duration
	for b.Loop() {
		cwd := b.TempDir()
		start := time.Now()
		var wg sync.WaitGroup
		errs := make(chan error, sessions)
		for range sessions {
			wg.Go(func() { errs <- createAndPrompt(url, d.token, cwd) })
		}
		wg.Wait()
		walls = append(walls, time.Since(start))
		close(errs)
		for err := range errs {
			testkit.NoError(b, err)
		}
	}
	b.ReportMetric(float64(median(walls).Microseconds())/1000, "ms-wall(median)")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// createAndPrompt is one client: initialize, session/new, session/prompt,
// read until the prompt's answer.
func createAndPrompt(url, token, cwd string) error {
	dl := websocket.Dialer{Subprotocols: []string{"acp.v1", "hydra-acp-token." + token}}
	ws, _, err := dl.Dial(url, nil)
	if err != nil {
		return fmt.Errorf("dial: %w", err)
	}
	defer ws.Close()
	_ = ws.SetReadDeadline(time.Now().Add(time.Minute))
	call := func(id int, method string, params any) (json.RawMessage, error) {
		if err := ws.WriteJSON(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
			return nil, err
		}
		want := []byte(fmt.Sprintf(`"id":%d,`, id))
		for {
			_, msg, err := ws.ReadMessage()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", method, err)
			}
			if !bytes.Contains(msg, want) || bytes.Contains(msg, []byte(`"method"`)) {
				continue
			}
			var r struct {
				Result json.RawMessage `json:"result"`
				Error  *struct{ Message string }
			}
			if err := json.Unmarshal(msg, &r); err != nil {
				return nil, err
			}
			if r.Error != nil {
				return nil, fmt.Errorf("%s: %s", method, r.Error.Message)
			}
			return r.Result, nil
		}
	}
	if _, err := call(1, "initialize", map[string]any{"protocolVersion": 1}); err != nil {
		return err
	}
	res, err := call(2, "session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}})
	if err != nil {
		return err
	}
	var s struct{ SessionID string }
	if err := json.Unmarshal(res, &s); err != nil || s.SessionID == "" {
		return fmt.Errorf("session/new: %s", res)
	}
	res, err = call(3, "session/prompt", map[string]any{"sessionId": s.SessionID, "prompt": []any{map[string]any{"type": "text", "text": "go"}}})
	if err != nil {
		return err
	}
	if !bytes.Contains(res, []byte(`"end_turn"`)) {
		return fmt.Errorf("session/prompt: %s", res)
	}
	return nil
}
