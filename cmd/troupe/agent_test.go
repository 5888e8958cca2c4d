package main

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	kit "github.com/troupehq/troupe/testkit/transcript"
)

var updateAgents = flag.Bool("update-agents", false, "rewrite the want sections of testdata/agents/*.txtar")

// TestAgentTranscripts drives `troupe agent ...` end to end: each
// testdata/agents/*.txtar runs the real binary on the example agents of
// testkit/agents (copied to $WORK/agents) against the scripted LLM
// server. go test -run TestAgentTranscripts -update-agents rewrites them.
func TestAgentTranscripts(t *testing.T) {
	// troupe-mcptest goes first on this process's PATH, for the agent
	// whose manifest names it: the kit starts troupe with the test's
	// environment.
	bin := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "troupe-mcptest"), "github.com/troupehq/troupe/testkit/cmd/troupe-mcptest").CombinedOutput(); err != nil {
		t.Fatalf("build troupe-mcptest: %v\n%s", err, out)
	}
	path := os.Getenv("PATH")
	os.Setenv("PATH", bin+string(os.PathListSeparator)+path)
	t.Cleanup(func() { os.Setenv("PATH", path) })
	kit.Run(t, kit.Params{Dir: "testdata/agents", Update: *updateAgents, Setup: func(env *testscript.Env) error {
		return copyAgents(filepath.Join(env.WorkDir, "agents"))
	}, Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"waitfile": cmdWaitFile}})
}

// waitfile FILE: wait (up to a minute) until FILE exists, for a scenario
// that must know a tool's command really started.
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile FILE")
	}
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat(ts.MkAbs(args[0])); err == nil {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitfile: %s did not appear within a minute", args[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// copyAgents copies testkit/agents to dst.
func copyAgents(dst string) error {
	src := filepath.Join("..", "..", "testkit", "agents")
	return filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
}
