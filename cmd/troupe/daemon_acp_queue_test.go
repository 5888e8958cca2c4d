package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// The prompt-queue surface through the daemon binary: prompts queue behind
// the running one; update edits a queued one, cancel removes one (its
// session/prompt answers cancelled). A read-only client hears every queue
// change and has each mutation refused with -32011.
func TestDaemonACPQueueAndReadonly(t *testing.T) {
	env, model := llmEnv(t,
		llmserver.Steps(llmserver.Text("working"), llmserver.Delay(3*time.Second), llmserver.Text(" done")),
		llmserver.Steps(llmserver.Text("second answer")))
	d := startDaemon(t, t.TempDir(), env, append(model, "--approval-mode", "yolo")...)
	a := d.dialACP(t, "editor")
	sid, _ := a.NewSession(t.TempDir())
	r := d.dialACP(t, "viewer")
	r.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none",
		"_meta": map[string]any{"hydra-acp": map[string]any{"readonly": true}}})

	for _, call := range []struct {
		method string
		params map[string]any
	}{
		{"session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "no"}}}},
		{"session/cancel", map[string]any{"sessionId": sid}},
		{"hydra-acp/prompt/cancel", map[string]any{"sessionId": sid, "messageId": "m-1"}},
	} {
		f := r.WaitAnswer(r.Call(call.method, call.params))
		if f.Error == nil || f.Error.Code != -32011 {
			t.Fatalf("%s from a read-only client: %s, want error -32011", call.method, f.Raw)
		}
	}

	p1 := a.Prompt(sid, "first")
	a.Until(func(f acpclient.Frame) bool { return f.IsUpdate("agent_message_chunk") })
	p2 := a.Prompt(sid, "second")
	p3 := a.Prompt(sid, "third")
	var added []acpclient.QueueNote
	r.Until(func(f acpclient.Frame) bool {
		if f.Method == "hydra-acp/prompt_queue/added" {
			added = append(added, f.QueueNote(t))
		}
		return len(added) == 3
	})
	second, third := added[1].MessageID, added[2].MessageID
	testkit.Equal(t, added[1].Position, 1)
	testkit.Equal(t, added[2].Position, 2)

	var res map[string]any
	a.WaitAnswer(a.Call("hydra-acp/prompt/update", map[string]any{"sessionId": sid, "messageId": second,
		"prompt": []any{map[string]any{"type": "text", "text": "second, edited"}}})).Decode(t, &res)
	testkit.Equal(t, res["updated"], true)
	upd := r.Until(func(f acpclient.Frame) bool { return f.Method == "hydra-acp/prompt_queue/updated" })
	testkit.Equal(t, upd[len(upd)-1].QueueNote(t).Prompt[0].Text, "second, edited")

	cancel := a.Call("hydra-acp/prompt/cancel", map[string]any{"sessionId": sid, "messageId": third})
	fs := a.Until(func(f acpclient.Frame) bool { return f.Answers(cancel) })
	fs[len(fs)-1].Decode(t, &res)
	testkit.Equal(t, res["cancelled"], true)
	// The cancelled prompt's answer and the cancel's come in either order.
	if !slices.ContainsFunc(fs, func(f acpclient.Frame) bool { return f.Answers(p3) }) {
		fs = a.Until(func(f acpclient.Frame) bool { return f.Answers(p3) })
	}
	got := fs[slices.IndexFunc(fs, func(f acpclient.Frame) bool { return f.Answers(p3) })]
	testkit.Equal(t, string(got.Result), `{"stopReason":"cancelled"}`)
	rm := r.Until(func(f acpclient.Frame) bool {
		return f.Method == "hydra-acp/prompt_queue/removed" && f.QueueNote(t).MessageID == third
	})
	testkit.Equal(t, rm[len(rm)-1].QueueNote(t).Reason, "cancelled")

	fs = a.Until(func(f acpclient.Frame) bool { return f.Answers(p1) })
	testkit.Equal(t, string(fs[len(fs)-1].Result), `{"stopReason":"end_turn"}`)
	fs = a.Until(func(f acpclient.Frame) bool { return f.Answers(p2) })
	testkit.Equal(t, string(fs[len(fs)-1].Result), `{"stopReason":"end_turn"}`)
	if text := acpclient.Chunks(t, fs); !strings.Contains(text, "second answer") {
		t.Fatalf("the edited prompt should have run after the first; got %q", text)
	}
}
