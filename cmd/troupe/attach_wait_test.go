package main

import (
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
)

var toolLine = regexp.MustCompile(`✓ edit notes\.txt [^\r\n]*`)

// A call that waited for permission shows the same duration live and in
// attach's replay (--from-start), the wait said apart: the replay
// coalesces a call's updates to its last, so the run is timed from the
// permission decision, which both see.
func TestAttachReplayTimesToolAsLive(t *testing.T) {
	env, model := permissionTurn(t)
	d := startDaemon(t, t.TempDir(), env, model...)
	cwd := notesDir(t)
	sid := d.create(t, cwd)

	live := startAttach(t, d, true, []string{"NO_COLOR=1"}, sid)
	live.waitFor(t, "attached to")
	other := d.dialACP(t, "editor")
	other.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})
	pid := other.Prompt(sid, "fix the typo in notes.txt")
	live.waitFor(t, "Reject ")
	time.Sleep(300 * time.Millisecond) // a person reading the request: the wait the replay used to add to the call
	live.press(t, "y")
	other.WaitAnswer(pid)
	live.waitFor(t, "── end_turn")
	live.press(t, "\x03")
	testkit.Equal(t, live.exit(t), 0)

	replay := startAttach(t, d, false, nil, sid, "--from-start", "--readonly")
	replay.waitFor(t, "Ctrl-C detaches") // the attach answered, after the replay
	testkit.NoError(t, replay.cmd.Process.Signal(syscall.SIGINT))
	testkit.Equal(t, replay.exit(t), 0)

	liveLine, replayed := toolLine.FindString(live.out.String()), toolLine.FindString(replay.out.String())
	if liveLine == "" || liveLine != replayed {
		t.Fatalf("the call's line live %q, replayed %q", liveLine, replayed)
	}
	compareGolden(t, "attach_replay_wait.golden", normaliseView(replay.out.String(), map[string]string{sid: "SESSION"}))
}
