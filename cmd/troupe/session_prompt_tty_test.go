package main

import (
	"regexp"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// session prompt on a terminal renders its turn as attach does: the
// spinner while the model has not answered, thinking dimmed, colours, the
// edit's line and diff; the permission is answered by key. A second
// prompt's Ctrl-C (a key: the terminal is in raw mode) cancels its turn:
// exit 130, the view saying so once; with NO_COLOR set it has no colour.
func TestSessionPromptTerminal(t *testing.T) {
	env, model := llmEnv(t,
		llmserver.Steps(llmserver.Delay(time.Second), llmserver.Thinking("The notes have a typo."), llmserver.Text("I'll fix "), llmserver.Text("the typo."),
			llmserver.ToolCall("c1", "edit", `{"path":"notes.txt","old_string":"helo","new_string":"hello"}`)),
		llmserver.Steps(llmserver.Text("Fixed: notes.txt "), llmserver.Text("now says hello.")),
		llmserver.Steps(llmserver.Text("working "), llmserver.Delay(time.Minute), llmserver.Text("never")))
	d := startDaemon(t, t.TempDir(), env, model...)
	cwd := notesDir(t)
	sid := d.create(t, cwd)

	v := startView(t, d, true, []string{"NO_COLOR="}, "prompt", sid, "fix the typo in notes.txt")
	v.waitFor(t, "Reject ")
	v.press(t, "y")
	testkit.Equal(t, v.exit(t), 0)
	wantNotes(t, cwd, "hello world\n")
	out := v.out.String()
	if !spinnerDraw.MatchString(out) {
		t.Fatalf("no spinner while the model had not answered: %q", out)
	}
	compareGolden(t, "prompt_tty.golden", normaliseView(out, nil))

	// With NO_COLOR set: no colour on the terminal.
	v = startView(t, d, true, []string{"NO_COLOR=1"}, "prompt", sid, "start")
	v.waitFor(t, "working")
	v.press(t, "\x03")
	testkit.Equal(t, v.exit(t), promptCancelled)
	out = v.out.String()
	if sgr.MatchString(out) {
		t.Fatalf("prompt output: %q", out)
	}
	// The end is said once, by the view: "── cancelled".
	compareGolden(t, "prompt_cancel_tty.golden", normaliseView(out, nil))
}
