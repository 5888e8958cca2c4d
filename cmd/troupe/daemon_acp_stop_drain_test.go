package main

import (
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// Stopping a session (hydra-acp/session/force_cancel, session/close) while
// a turn runs answers every attached connection's prompt before the
// session goes cold, not only the stopping connection's: the prompt of
// another connection, whose subscription still owed it the run's end,
// answers cancelled at once rather than when the session next wakes.
func TestDaemonACPStopAnswersEveryConnectionsPrompt(t *testing.T) {
	for _, method := range []string{"hydra-acp/session/force_cancel", "session/close"} {
		t.Run(method, func(t *testing.T) {
			home, work := t.TempDir(), t.TempDir()
			env, model := llmEnv(t,
				llmserver.Steps(llmserver.Text("working"), llmserver.Delay(time.Minute), llmserver.Text(" never")))
			d := startDaemon(t, home, env, model...)
			a := d.dialACP(t, "stopper")
			sid, _ := a.NewSession(work)
			b := d.dialACP(t, "editor")
			b.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})
			p := b.Prompt(sid, "go")
			b.Until(func(f acpclient.Frame) bool { return f.IsUpdate("agent_message_chunk") })
			a.Until(func(f acpclient.Frame) bool { return f.IsUpdate("agent_message_chunk") })

			stop := a.Call(method, map[string]any{"sessionId": sid})
			if f := a.WaitAnswer(stop); f.Error != nil {
				t.Fatalf("%s: %s", method, f.Raw)
			}
			// Bounded well below the turn's minute: only the stop can
			// answer it in time.
			fs := b.UntilWithin(20*time.Second, func(f acpclient.Frame) bool { return f.Answers(p) })
			answer := fs[len(fs)-1]
			if answer.Error != nil {
				t.Fatalf("the other connection's prompt: %s", answer.Raw)
			}
			testkit.Equal(t, string(answer.Result), `{"stopReason":"cancelled"}`)
		})
	}
}
