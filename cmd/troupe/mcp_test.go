package main

import (
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// The spec client against troupe mcp, a subprocess on stdio: each
// version's handshake (a process each), then the whole scenario with a
// prompt streamed from the scripted LLM.
func TestMCPStdioSpecClient(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	for version, want := range negotiated {
		p := stdioPeer{testkit.Start(t, bin, nil, "mcp", "--home", t.TempDir())}
		if got := initialize(t, p, version); got != want {
			t.Errorf("initialize %s: answered %s, want %s", version, got, want)
		}
		p.p.Stdin.Close()
		if code := p.p.Wait(t, mcpWait); code != 0 {
			t.Errorf("exit %d at EOF; stderr:\n%s", code, p.p.Stderr())
		}
	}

	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("Hello"), llmserver.Delay(50*time.Millisecond), llmserver.Text(", spec.")))
	p := stdioPeer{testkit.Start(t, bin, env, append([]string{"mcp", "--home", t.TempDir()}, model...)...)}
	initialize(t, p, "2025-06-18")
	exerciseMCP(t, p, t.TempDir(), "Hello, spec.")
	p.p.Stdin.Close()
	if code := p.p.Wait(t, mcpWait); code != 0 {
		t.Errorf("exit %d at EOF", code)
	}
}
