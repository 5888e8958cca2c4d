package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// A run a crash interrupted is marked where it is read back: troupe run
// resuming it says so before the resumed run's output, and the session's
// transcript marks the interruption where it happened (issue 25, item 22).
func TestResumedRunIsMarkedInterrupted(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	home, work := t.TempDir(), t.TempDir()
	side := filepath.Join(work, "side.txt")
	srv := llmserver.New(t, llmserver.Script{Model: "m", Replies: fourBashSteps(side)})
	model := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	env := append([]string{"TROUPE_HOME=" + home}, model...)
	killMidTool(t, bin, env, "call-2", side, "step-2", "--yolo", "--provider", "openai", "--model", "m", "--session", "cut", "--cwd", work, "four steps")

	lines, stderr, code := runLines(t, bin, env, "run", "--session", "cut")
	testkit.Equal(t, code, 0)
	out := strings.Join(lines, "\n")
	// The marker is a note: on stderr, with the tool lines, as session
	// prompt's renderer puts them.
	if !strings.Contains(stderr, "(run interrupted by a restart; resume)") {
		t.Fatalf("the resumed run shows no interruption:\n%s\nstderr:\n%s", out, stderr)
	}

	startDaemon(t, home, model, "--provider", "openai", "--model", "m")
	md := cli(t, env, "", "session", "transcript", "cut").ok(t, "session transcript")
	i, j := strings.Index(md, "_interrupted"), strings.Index(md, "all four done")
	if i < 0 || j < i {
		t.Fatalf("the transcript does not mark the interruption before the resumed answer:\n%s", md)
	}
}
