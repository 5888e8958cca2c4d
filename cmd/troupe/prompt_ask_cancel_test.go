package main

import (
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
)

// Ctrl-C while a permission request waits for its key cancels the turn;
// the request is withdrawn once, not drawn again under each line that
// follows (the note, the cancelled call, the turn's end).
func TestSessionPromptCtrlCAtPermission(t *testing.T) {
	env, model := permissionTurn(t)
	d := startDaemon(t, t.TempDir(), env, model...)
	cwd := notesDir(t)
	sid := d.create(t, cwd)

	v := startView(t, d, true, []string{"NO_COLOR=1"}, "prompt", sid, "fix the typo in notes.txt")
	v.waitFor(t, "Reject ")
	v.press(t, "\x03")
	testkit.Equal(t, v.exit(t), promptCancelled)
	wantNotes(t, cwd, "helo world\n")
	out := normaliseView(v.out.String(), nil)
	if n := strings.Count(out, "? allow edit"); n != 1 {
		t.Fatalf("the request was drawn %d times:\n%s", n, out)
	}
	compareGolden(t, "prompt_ask_cancel_tty.golden", out)
}
