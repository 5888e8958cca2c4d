package acp_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// The prompt-queue surface: prompts queue behind the running one; update
// edits a queued prompt, cancel removes one (its session/prompt answers
// cancelled), amend replaces the running one (cancelled, its partial
// answer kept) and the replacement runs next. A peer client sees every
// change as hydra-acp notifications.
func TestWebSocketQueueCancelUpdateAmend(t *testing.T) {
	r := newWSRig(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("working"), llmserver.Delay(5*time.Second), llmserver.Text(" never")),
		llmserver.Steps(llmserver.Text("amended answer")),
		llmserver.Steps(llmserver.Text("second answer")),
	}}, event.ApprovalYolo, nil)
	a := r.dial(t, "editor")
	sid, _ := a.NewSession(r.cwd)
	b := r.dial(t, "browser")
	b.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})

	p1 := a.Prompt(sid, "first")
	started := b.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Method == "hydra-acp/prompt_queue/removed" })
	first := started[len(started)-1].QueueNote(t).MessageID
	b.UntilWithin(wait, func(f acpclient.Frame) bool { return f.IsUpdate("agent_message_chunk") })

	p2 := a.Prompt(sid, "second")
	p3 := a.Prompt(sid, "third")
	var queued []acpclient.QueueNote
	b.UntilWithin(wait, func(f acpclient.Frame) bool {
		if f.Method == "hydra-acp/prompt_queue/added" {
			queued = append(queued, f.QueueNote(t))
		}
		return len(queued) == 2
	})
	testkit.Equal(t, queued[0].Position, 1)
	testkit.Equal(t, queued[1].Position, 2)
	second, third := queued[0].MessageID, queued[1].MessageID

	var res map[string]any
	a.WaitAnswerWithin(a.Call("hydra-acp/prompt/update", map[string]any{"sessionId": sid, "messageId": second,
		"prompt": []any{map[string]any{"type": "text", "text": "second, edited"}}}), wait).Decode(t, &res)
	testkit.Equal(t, res["updated"], true)
	upd := b.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Method == "hydra-acp/prompt_queue/updated" })
	testkit.Equal(t, upd[len(upd)-1].QueueNote(t).Prompt[0].Text, "second, edited")

	cancel := a.Call("hydra-acp/prompt/cancel", map[string]any{"sessionId": sid, "messageId": third})
	fs := a.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Answers(cancel) })
	testkit.NoError(t, json.Unmarshal(fs[len(fs)-1].Result, &res))
	testkit.Equal(t, res["cancelled"], true)
	// The cancelled prompt's answer and the cancel's may come in either
	// order.
	answered := slices.DeleteFunc(fs, func(f acpclient.Frame) bool { return !f.Answers(p3) })
	if len(answered) == 0 {
		answered = a.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Answers(p3) })
	}
	testkit.Equal(t, string(answered[len(answered)-1].Result), `{"stopReason":"cancelled"}`)
	rm := b.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Method == "hydra-acp/prompt_queue/removed" })
	testkit.Equal(t, rm[len(rm)-1].QueueNote(t).Reason, "cancelled")

	a.WaitAnswerWithin(a.Call("hydra-acp/prompt/cancel", map[string]any{"sessionId": sid, "messageId": first}), wait).Decode(t, &res)
	testkit.Equal(t, res["reason"], "already_running")

	amend := a.Call("hydra-acp/prompt/amend", map[string]any{"sessionId": sid, "targetMessageId": first,
		"prompt": []any{map[string]any{"type": "text", "text": "instead"}}})
	fs = a.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Answers(amend) })
	testkit.NoError(t, json.Unmarshal(fs[len(fs)-1].Result, &res))
	testkit.Equal(t, res["amended"], true)
	newID, _ := res["messageId"].(string)
	am := b.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Method == "hydra-acp/prompt/amended" })
	n := am[len(am)-1].QueueNote(t)
	testkit.Equal(t, n.CancelledMessageID, first)
	testkit.Equal(t, n.NewMessageID, newID)

	// The amended prompt's answer may come before the amend's.
	cut := slices.DeleteFunc(slices.Clone(fs), func(f acpclient.Frame) bool { return !f.Answers(p1) })
	if len(cut) == 0 {
		cut = a.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Answers(p1) })
	}
	testkit.Equal(t, string(cut[len(cut)-1].Result), `{"stopReason":"cancelled"}`)
	fs = a.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Answers(p2) })
	testkit.Equal(t, string(fs[len(fs)-1].Result), `{"stopReason":"end_turn"}`)
	text := acpclient.Chunks(t, fs)
	if !strings.Contains(text, "amended answer") || !strings.HasSuffix(text, "second answer") {
		t.Fatalf("the amendment then the edited prompt should have run, in order; got %q", text)
	}
	got := b.UntilWithin(wait, func(f acpclient.Frame) bool {
		return f.IsUpdate("prompt_received") && strings.Contains(f.Raw, "second, edited")
	})
	testkit.Equal(t, acpclient.Count(got, "turn_complete") >= 1, true)
}
