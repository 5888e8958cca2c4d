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
	"github.com/troupehq/troupe/transports/acp"
	"github.com/troupehq/troupe/transports/acp/pipeline"
)

// The prompt an amend sends is its sender's own, as Hydra has it: the
// other clients get its prompt_received, whose sentBy is {clientId, name,
// version}, and its turn_complete; the amending client gets neither.
// prompt_queue/added and prompt/amended name the originator with its
// clientInfo.
func TestAmendersOwnPromptIsNotEchoedToIt(t *testing.T) {
	r := newWSRig(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("working"), llmserver.Delay(5*time.Second), llmserver.Text(" never")),
		llmserver.Steps(llmserver.Text("amended answer")),
	}}, event.ApprovalYolo, nil)
	a := r.dial(t, "editor")
	sid, _ := a.NewSession(r.cwd)
	b := r.dial(t, "tui")
	_, att := b.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none",
		"clientInfo": map[string]any{"name": "hydra-acp-tui", "version": "0.1.161"}})

	a.Prompt(sid, "first")
	started := b.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Method == "hydra-acp/prompt_queue/removed" })
	first := started[len(started)-1].QueueNote(t).MessageID
	b.UntilWithin(wait, func(f acpclient.Frame) bool { return f.IsUpdate("agent_message_chunk") })

	amend := b.Call("hydra-acp/prompt/amend", map[string]any{"sessionId": sid, "targetMessageId": first,
		"prompt": []any{map[string]any{"type": "text", "text": "instead"}}})
	bFrames := b.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Answers(amend) })
	var res struct {
		Amended   bool   `json:"amended"`
		MessageID string `json:"messageId"`
	}
	testkit.NoError(t, json.Unmarshal(bFrames[len(bFrames)-1].Result, &res))
	testkit.Equal(t, res.Amended, true)

	want := `{"clientId":"` + att.ClientID + `","name":"hydra-acp-tui","version":"0.1.161"}`
	var sentBy, queuedBy, amendedBy string
	aFrames := a.UntilWithin(wait, func(f acpclient.Frame) bool {
		var p struct {
			MessageID  string          `json:"messageId"`
			Originator json.RawMessage `json:"originator"`
			Update     struct {
				SessionUpdate string          `json:"sessionUpdate"`
				SentBy        json.RawMessage `json:"sentBy"`
				StopReason    string          `json:"stopReason"`
			} `json:"update"`
		}
		_ = json.Unmarshal(f.Params, &p)
		switch {
		case f.Method == "hydra-acp/prompt_queue/added" && p.MessageID == res.MessageID:
			queuedBy = string(p.Originator)
		case f.Method == "hydra-acp/prompt/amended":
			amendedBy = string(p.Originator)
		case p.Update.SessionUpdate == "prompt_received" && strings.Contains(f.Raw, "instead"):
			sentBy = string(p.Update.SentBy)
		}
		return p.Update.SessionUpdate == "turn_complete" && p.Update.StopReason == "end_turn"
	})
	testkit.Equal(t, sentBy, want)
	testkit.Equal(t, queuedBy, want)
	testkit.Equal(t, amendedBy, want)
	if !strings.Contains(acpclient.Chunks(t, aFrames), "amended answer") {
		t.Fatalf("the amendment did not run: %q", acpclient.Chunks(t, aFrames))
	}

	// A change after the run's end: b has been shown all of the run once
	// it sees it.
	a.WaitAnswerWithin(a.Call("session/set_mode", map[string]any{"sessionId": sid, "modeId": "default"}), wait)
	bFrames = append(bFrames, b.UntilWithin(wait, func(f acpclient.Frame) bool { return f.IsUpdate("current_mode_update") })...)
	for _, f := range bFrames {
		if f.Method != "session/update" {
			continue
		}
		u := f.Update(t)
		if u.Update.SessionUpdate == "prompt_received" && strings.Contains(f.Raw, "instead") {
			t.Errorf("the amending client got its own prompt_received: %s", f.Raw)
		}
		if u.Update.SessionUpdate == "turn_complete" && u.Update.StopReason == "end_turn" {
			t.Errorf("the amending client got its own prompt's turn_complete: %s", f.Raw)
		}
	}
}

// amendAnswer is hydra-acp/prompt/amend's answer.
type amendAnswer struct {
	Amended   bool   `json:"amended"`
	Reason    string `json:"reason"`
	MessageID string `json:"messageId"`
}

func amendOf(t *testing.T, c *acpclient.Client, sid, target, onCompleted string) amendAnswer {
	t.Helper()
	res, _ := amendWith(t, c, sid, target, onCompleted)
	return res
}

// amendWith also returns the frames up to the answer.
func amendWith(t *testing.T, c *acpclient.Client, sid, target, onCompleted string) (amendAnswer, []acpclient.Frame) {
	t.Helper()
	params := map[string]any{"sessionId": sid, "targetMessageId": target,
		"prompt": []any{map[string]any{"type": "text", "text": "instead"}}}
	if onCompleted != "" {
		params["onTargetCompleted"] = onCompleted
	}
	id := c.Call("hydra-acp/prompt/amend", params)
	fs := c.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Answers(id) })
	var res amendAnswer
	fs[len(fs)-1].Decode(t, &res)
	return res, fs
}

// An amend whose target is no longer running answers what became of it:
// target_cancelled, target_completed (send_anyway sends the prompt, with
// amended false), or target_not_found for an id the session never queued,
// which send_anyway does not turn into a new prompt.
func TestAmendAnswersWhatBecameOfItsTarget(t *testing.T) {
	r := newWSRig(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("first done")),
		llmserver.Steps(llmserver.Text("working"), llmserver.Delay(5*time.Second), llmserver.Text(" never")),
		llmserver.Steps(llmserver.Text("sent anyway")),
	}}, event.ApprovalYolo, nil)
	a := r.dial(t, "a")
	sid, _ := a.NewSession(r.cwd)
	queuedID := func(fs []acpclient.Frame) string {
		for _, f := range fs {
			if f.Method == "hydra-acp/prompt_queue/added" {
				return f.QueueNote(t).MessageID
			}
		}
		t.Fatal("no prompt_queue/added")
		return ""
	}
	p := a.Prompt(sid, "first")
	first := queuedID(a.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Answers(p) }))

	p = a.Prompt(sid, "second")
	fs := a.UntilWithin(wait, func(f acpclient.Frame) bool { return f.IsUpdate("agent_message_chunk") })
	second := queuedID(fs)
	a.Send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": sid}})
	a.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Answers(p) })

	testkit.Equal(t, amendOf(t, a, sid, second, "send_anyway"), amendAnswer{Reason: "target_cancelled"})
	mistyped, fs := amendWith(t, a, sid, "msg-mistyped", "send_anyway")
	testkit.Equal(t, mistyped, amendAnswer{Reason: "target_not_found"})
	testkit.Equal(t, amendOf(t, a, sid, first, ""), amendAnswer{Reason: "target_completed"})
	sent, more := amendWith(t, a, sid, first, "send_anyway")
	if sent.Amended || sent.Reason != "target_completed" || sent.MessageID == "" {
		t.Fatalf("send_anyway of a completed target: %+v", sent)
	}
	fs = append(fs, more...)
	// The mistyped amend sent nothing: the queue is first in, first out,
	// so a prompt it had queued would have started before send_anyway's.
	// Wait for send_anyway's run to start (after the amend's answer: the
	// queue starts it on its own time) and look at every start until then.
	startedOf := func(f acpclient.Frame) (string, bool) {
		if f.Method != "hydra-acp/prompt_queue/removed" {
			return "", false
		}
		n := f.QueueNote(t)
		return n.MessageID, n.Reason == "started"
	}
	seen := slices.ContainsFunc(fs, func(f acpclient.Frame) bool { id, ok := startedOf(f); return ok && id == sent.MessageID })
	if !seen {
		fs = append(fs, a.UntilWithin(wait, func(f acpclient.Frame) bool { id, ok := startedOf(f); return ok && id == sent.MessageID })...)
	}
	var started []string
	for _, f := range fs {
		if id, ok := startedOf(f); ok {
			started = append(started, id)
		}
	}
	testkit.Equal(t, strings.Join(started, ","), sent.MessageID)
}

// A session deleted with prompts waiting abandons them, as Hydra does: the
// clients still attached get prompt_queue/removed {abandoned}, and the
// sender's session/prompt answers cancelled.
func TestDeletedSessionAbandonsItsQueue(t *testing.T) {
	r := newWSRig(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("working"), llmserver.Delay(30*time.Second), llmserver.Text(" never")),
	}}, event.ApprovalYolo, func(cfg *acp.WebSocketConfig) { cfg.Pipeline = pipeline.New() })
	a := r.dial(t, "a")
	sid, _ := a.NewSession(r.cwd)
	a.Prompt(sid, "first")
	a.UntilWithin(wait, func(f acpclient.Frame) bool { return f.IsUpdate("agent_message_chunk") })
	second := a.Prompt(sid, "second")
	added := a.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Method == "hydra-acp/prompt_queue/added" })
	queued := added[len(added)-1].QueueNote(t).MessageID

	b := r.dial(t, "b")
	if f := b.WaitAnswerWithin(b.Call("session/delete", map[string]any{"sessionId": sid}), wait); f.Error != nil {
		t.Fatalf("session/delete: %s", f.Raw)
	}
	var reason string
	fs := a.UntilWithin(wait, func(f acpclient.Frame) bool {
		if f.Method == "hydra-acp/prompt_queue/removed" && f.QueueNote(t).MessageID == queued {
			reason = f.QueueNote(t).Reason
		}
		return f.Answers(second)
	})
	testkit.Equal(t, reason, "abandoned")
	testkit.Equal(t, string(fs[len(fs)-1].Result), `{"stopReason":"cancelled"}`)
}
