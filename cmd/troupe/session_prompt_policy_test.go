package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// `troupe session prompt` into a pipe never waits for ever on a
// permission request: by default it is denied at once, the note naming
// the flags that allow it; --allow answers the tools it names (by kind
// or name), --deny wins over it, and --timeout leaves a request open for
// `session attach` that long, then denies it. The scripted model asks for
// bash each time; the marker file says whether the command ran.
func TestSessionPromptUnattendedPermissions(t *testing.T) {
	home := t.TempDir()
	cwd := t.TempDir()
	marker := filepath.Join(cwd, "ran")
	call := llmserver.Steps(llmserver.ToolCall("c1", "bash", `{"command":"touch ran"}`))
	done := llmserver.Steps(llmserver.Text("done"))
	env, model := llmEnv(t, call, done, call, done, call, done, call, done)
	startDaemon(t, home, env, model...)
	env = append(env, "TROUPE_HOME="+home)
	id := strings.TrimSpace(cli(t, env, "", "session", "new", "--cwd", cwd).ok(t, "new"))
	ran := func() bool {
		_, err := os.Stat(marker)
		return err == nil
	}

	// Neither flag: denied at once, saying which flag allows it.
	r := cli(t, env, "", "session", "prompt", id, "touch it")
	testkit.Equal(t, r.ok(t, "prompt, unattended"), "done\n")
	want := "denied bash: no one to answer here; `--allow execute` allows it, `--timeout 10m` leaves it open for `troupe session attach " + id + "`"
	if !strings.Contains(r.stderr, want) || ran() {
		t.Fatalf("unattended prompt (ran: %v): stderr %q", ran(), r.stderr)
	}

	// --deny wins over --allow.
	r = cli(t, env, "", "session", "prompt", id, "touch it", "--allow", "all", "--deny", "bash")
	r.ok(t, "prompt --deny bash")
	if !strings.Contains(r.stderr, "denied bash (deny bash)") || ran() {
		t.Fatalf("--deny bash (ran: %v): stderr %q", ran(), r.stderr)
	}

	// --timeout: left open for attach, then denied.
	r = cli(t, env, "", "session", "prompt", id, "touch it", "--timeout", "200ms")
	r.ok(t, "prompt --timeout")
	if !strings.Contains(r.stderr, "(denied after 200ms unanswered)") || !strings.Contains(r.stderr, "denied bash: no answer within 200ms (--timeout)") || ran() {
		t.Fatalf("--timeout (ran: %v): stderr %q", ran(), r.stderr)
	}

	// --allow by kind: the command runs.
	r = cli(t, env, "", "session", "prompt", id, "touch it", "--allow", "execute")
	r.ok(t, "prompt --allow execute")
	if !strings.Contains(r.stderr, "allowed bash (allow execute)") || !ran() {
		t.Fatalf("--allow execute (ran: %v): stderr %q", ran(), r.stderr)
	}
	// None of the denials was left waiting.
	if out := cli(t, env, "", "session", "list", "--json").ok(t, "list"); strings.Contains(out, `"awaitingInput": true`) {
		t.Fatalf("a request still open: %s", out)
	}
}
