package main

import (
	"syscall"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// Hydra's shim, reconnecting after the daemon restarted, opens a new
// connection and sends no initialize: it re-attaches the session it
// tracks (after_message the last update it saw, its resume hints under
// _meta) and the editor's next prompt follows. The connection is
// authenticated by its token, so troupe serves it as Hydra's daemon does:
// the attach and the prompt are answered.
func TestDaemonACPShimReconnectWithoutInitialize(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env, model := llmEnv(t,
		llmserver.Steps(llmserver.Text("first answer")),
		llmserver.Steps(llmserver.Text("second answer")))
	d := startDaemon(t, home, env, model...)
	a := d.dialACP(t, "hydra-acp-shim")
	sid, _ := a.NewSession(work)
	first := a.Prompt(sid, "first")
	fs := a.Until(func(f acpclient.Frame) bool { return f.Answers(first) })
	var last string // the last update's id, as the shim keeps it
	for _, f := range fs {
		if f.Method == "session/update" {
			last = acpclient.Anchor(t, f)
		}
	}
	if last == "" {
		t.Fatal("the first turn sent no update")
	}
	d.proc.Signal(syscall.SIGTERM)
	testkit.Equal(t, d.proc.Wait(t, acpWait), 0)
	d = startDaemon(t, home, env, model...)

	b := acpclient.Dial(t, acpclient.Options{URL: d.wsURL(""), Subprotocols: acpclient.WithToken(d.token), Wait: acpWait, NoInitialize: true})
	id := b.Call("session/attach", map[string]any{"sessionId": sid, "historyPolicy": "after_message", "afterMessageId": last,
		"_meta": map[string]any{"hydra-acp": map[string]any{"resume": map[string]any{"upstreamSessionId": sid, "agentId": "troupe", "cwd": work}}}})
	if f := b.WaitAnswer(id); f.Error != nil {
		t.Fatalf("the re-attach without initialize: %s", f.Raw)
	}
	second := b.Prompt(sid, "second")
	fs = b.Until(func(f acpclient.Frame) bool { return f.Answers(second) })
	answer := fs[len(fs)-1]
	if answer.Error != nil {
		t.Fatalf("the prompt after the re-attach: %s", answer.Raw)
	}
	var res struct {
		StopReason string `json:"stopReason"`
	}
	answer.Decode(t, &res)
	testkit.Equal(t, res.StopReason, "end_turn")
	testkit.Equal(t, acpclient.Chunks(t, fs), "second answer")
}
