package main

import (
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// Stopping a session (hydra-acp/session/force_cancel, session/close) while
// a turn runs answers the turn's prompt before the session goes cold, not
// when it next wakes: another connection's, whose subscription still owed
// it the run's end, and the closing connection's own, which session/close
// detaches.
func TestDaemonACPStopAnswersEveryConnectionsPrompt(t *testing.T) {
	for _, tc := range []struct {
		method string
		own    bool // the stopping connection sent the prompt
	}{
		{"hydra-acp/session/force_cancel", false},
		{"session/close", false},
		{"session/close", true},
	} {
		name := tc.method
		if tc.own {
			name += "/own"
		}
		t.Run(name, func(t *testing.T) {
			home, work := t.TempDir(), t.TempDir()
			env, model := llmEnv(t,
				llmserver.Steps(llmserver.Text("working"), llmserver.Delay(time.Minute), llmserver.Text(" never")))
			d := startDaemon(t, home, env, model...)
			a := d.dialACP(t, "stopper")
			sid, _ := a.NewSession(work)
			b := d.dialACP(t, "editor")
			b.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})
			prompter := b
			if tc.own {
				prompter = a
			}
			p := prompter.Prompt(sid, "go")
			b.Until(func(f acpclient.Frame) bool { return f.IsUpdate("agent_message_chunk") })
			a.Until(func(f acpclient.Frame) bool { return f.IsUpdate("agent_message_chunk") })

			stop := a.Call(tc.method, map[string]any{"sessionId": sid})
			// Bounded well below the turn's minute: only the stop can
			// answer the prompt in time.
			fs := prompter.UntilWithin(20*time.Second, func(f acpclient.Frame) bool { return f.Answers(p) })
			answer := fs[len(fs)-1]
			if answer.Error != nil {
				t.Fatalf("the prompt: %s", answer.Raw)
			}
			testkit.Equal(t, string(answer.Result), `{"stopReason":"cancelled"}`)
			if f := a.WaitAnswer(stop); f.Error != nil {
				t.Fatalf("%s: %s", tc.method, f.Raw)
			}
		})
	}
}
