package main

import (
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// SIGKILL of the daemon mid-turn with two clients attached; a new daemon
// on the same home. Each client reattaches after_message the last update
// it saw and gets exactly the committed events it had not seen, then the
// run resumed (a daemon's sessions record crash policy resume) live to
// its end: its text and a fresh full replay's are the same, nothing twice.
func TestDaemonACPSIGKILLMidTurnReattach(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env, model := llmEnv(t,
		llmserver.Steps(llmserver.Text("one "), llmserver.Text("two "), llmserver.Delay(30*time.Second), llmserver.Text("never")),
		llmserver.Steps(llmserver.Text("resumed")))
	args := append(model, "--approval-mode", "yolo")
	// SIGKILLed below: that needs its own process.
	d := startDaemonBinary(t, home, env, args...)
	a := d.dialACP(t, "editor")
	sid, _ := a.NewSession(work)
	b := d.dialACP(t, "browser")
	b.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})
	a.Prompt(sid, "count")

	sawTwo := func(text *strings.Builder) func(acpclient.Frame) bool {
		return func(f acpclient.Frame) bool {
			if f.IsUpdate("agent_message_chunk") {
				text.WriteString(f.Update(t).Update.Content.Text)
			}
			return strings.Contains(text.String(), "two")
		}
	}
	var aText, bText strings.Builder
	aSeen, bSeen := a.Until(sawTwo(&aText)), b.Until(sawTwo(&bText))
	d.proc.Kill()
	testkit.Equal(t, d.proc.Wait(t, acpWait), -1)

	d = startDaemon(t, home, env, args...)
	// Both reattach before either reads on, so both are attached while the
	// run resumes.
	var rs []*reattached
	for _, cl := range []struct {
		name string
		seen []acpclient.Frame
	}{{"editor", aSeen}, {"browser", bSeen}} {
		c := d.dialACP(t, cl.name)
		replayed, res := c.Attach(map[string]any{"sessionId": sid, "historyPolicy": "after_message", "afterMessageId": lastAnchor(t, cl.seen)})
		testkit.Equal(t, res.HistoryPolicy, "after_message")
		r := &reattached{name: cl.name, c: c, got: append([]acpclient.Frame{}, cl.seen...)}
		for _, f := range replayed {
			r.take(t, f)
		}
		rs = append(rs, r)
	}
	for _, r := range rs {
		if !r.finished {
			r.c.Until(func(f acpclient.Frame) bool { r.take(t, f); return r.finished })
		}
		acpclient.RequireIncreasing(t, r.got)
		fresh := d.dialACP(t, "fresh-"+r.name)
		full, _ := fresh.Attach(map[string]any{"sessionId": sid, "historyPolicy": "full"})
		testkit.Equal(t, acpclient.Chunks(t, r.got), acpclient.Chunks(t, full))
		if !strings.HasPrefix(acpclient.Chunks(t, full), "one two") || !strings.HasSuffix(acpclient.Chunks(t, full), "resumed") {
			t.Fatalf("%s: the session's text %q is not the first run's then the resumed one's", r.name, acpclient.Chunks(t, full))
		}
		// Everything the store has after the anchor, the client now has.
		testkit.Equal(t, lastAnchor(t, r.got), lastAnchor(t, full))
	}
}

// reattached is a client of the restarted daemon and all it received.
type reattached struct {
	name     string
	c        *acpclient.Client
	got      []acpclient.Frame
	finished bool // the resumed run's turn_complete came
}

// take adds a frame the client received.
func (r *reattached) take(t testing.TB, f acpclient.Frame) {
	r.got = append(r.got, f)
	if f.IsUpdate("turn_complete") && strings.Contains(acpclient.Chunks(t, r.got), "resumed") {
		r.finished = true
	}
}

// lastAnchor is the messageId of the last update among fs.
func lastAnchor(t testing.TB, fs []acpclient.Frame) string {
	t.Helper()
	for i := len(fs) - 1; i >= 0; i-- {
		if fs[i].Method == "session/update" {
			if id := fs[i].Update(t).Meta.Hydra.MessageID; id != "" {
				return id
			}
		}
	}
	t.Fatal("no update with a messageId")
	return ""
}
