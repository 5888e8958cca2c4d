package main

import (
	"encoding/json"
	"testing"

	"github.com/troupehq/troupe/testkit/llmserver"
)

// BenchmarkDaemonMCPPrompt: one session.prompt through the daemon's /mcp,
// from the POST to the end of its SSE stream, with a progressToken: a
// reply of 20 text deltas from the scripted LLM, each one a progress
// notification on the call's stream.
func BenchmarkDaemonMCPPrompt(b *testing.B) {
	steps := make([]llmserver.Step, 20)
	for i := range steps {
		steps[i] = llmserver.Text("word ")
	}
	reply := llmserver.Steps(steps...)
	srv := llmserver.New(b, llmserver.Script{Model: "tiny", Default: &reply})
	env := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	// A benchmark measures the daemon binary, as BENCHMARKS.md's figures do.
	d := startDaemonBinary(b, b.TempDir(), env, "--provider", "openai", "--model", "tiny")
	p := &httpPeer{url: d.url, token: d.token}
	p.version = initialize(b, p, "2025-11-25")
	created, _ := callTool(b, p, 2, "session.create", map[string]any{"cwd": b.TempDir()}, nil)
	var sess struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal(created.StructuredContent, &sess); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, notes := callTool(b, p, 10+i, "session.prompt", map[string]any{"session_id": sess.SessionID, "text": "go"},
			map[string]any{"progressToken": i})
		if len(notes) == 0 {
			b.Fatal("no progress notification")
		}
	}
}
