package acp_test

import (
	"fmt"
	"github.com/troupehq/troupe/transports/acpupdate"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
	"github.com/troupehq/troupe/transports/acp"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

const wait = 20 * time.Second

// Two clients on one session: the prompt's sender gets the stream and
// the answer; the other sees prompt_received, the same stream and
// turn_complete. The server echoes acp.v1, never the token entry.
func TestWebSocketTwoClients(t *testing.T) {
	r := newWSRig(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("Hello"), llmserver.Text(" both")),
	}}, event.ApprovalYolo, nil)
	a := r.dial(t, "editor")
	testkit.Equal(t, a.Subprotocol, acp.Subprotocol)
	sid, aID := a.NewSession(r.cwd)
	b := r.dial(t, "browser")
	_, att := b.Attach(map[string]any{"sessionId": sid, "historyPolicy": "full", "clientId": "tab-7", "clientInfo": map[string]any{"name": "web", "version": "2"}})
	testkit.DeepEqual(t, att.ConnectedClients, []acpclient.ClientInfo{{ClientID: aID, Name: "editor"}, {ClientID: "tab-7", Name: "web", Version: "2"}})
	testkit.Equal(t, att.ClientID, "tab-7")
	f := b.WaitAnswerWithin(b.Call("session/attach", map[string]any{"sessionId": sid}), wait)
	testkit.Equal(t, f.Error.Code, acp.CodeAlreadyAttached)

	pid := a.Prompt(sid, "hi")
	aFrames := a.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Answers(pid) })
	testkit.Equal(t, string(aFrames[len(aFrames)-1].Result), `{"stopReason":"end_turn"}`)
	bFrames := b.UntilWithin(wait, func(f acpclient.Frame) bool { return f.IsUpdate("turn_complete") })

	testkit.Equal(t, acpclient.Chunks(t, aFrames), "Hello both")
	testkit.Equal(t, acpclient.Chunks(t, bFrames), "Hello both")
	testkit.Equal(t, acpclient.Count(aFrames, "prompt_received"), 0)
	testkit.Equal(t, acpclient.Count(bFrames, "prompt_received"), 1)
	var got acpclient.Update
	for _, f := range bFrames {
		if f.IsUpdate("prompt_received") {
			got = f.Update(t)
		}
	}
	testkit.Equal(t, strings.HasPrefix(got.Update.Meta.Hydra.ACPMessageID, "msg-"), true)
	last := bFrames[len(bFrames)-1].Update(t)
	testkit.Equal(t, last.Update.StopReason, "end_turn")
	testkit.Equal(t, last.Update.Meta.Hydra.ACPMessageID, got.Update.Meta.Hydra.ACPMessageID)
	// Each update has its own id, the same as its _meta anchor.
	testkit.Equal(t, got.Update.MessageID, got.Meta.Hydra.MessageID)
	testkit.Equal(t, last.Update.MessageID != got.Update.MessageID, true)
}

// A client detaches mid-reply and attaches again after_message the last
// update it saw: it gets exactly what it missed (coalesced) then the rest
// live, nothing twice. An unknown anchor replays in full and says so.
func TestWebSocketAttachAfterMessage(t *testing.T) {
	r := newWSRig(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("one "), llmserver.Delay(300*time.Millisecond), llmserver.Text("two "),
			llmserver.Text("three "), llmserver.Delay(700*time.Millisecond), llmserver.Text("four")),
	}}, event.ApprovalYolo, nil)
	a := r.dial(t, "editor")
	sid, _ := a.NewSession(r.cwd)
	c := r.dial(t, "phone")
	c.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})
	pid := a.Prompt(sid, "count")

	var text strings.Builder
	seen := c.UntilWithin(wait, func(f acpclient.Frame) bool {
		if f.IsUpdate("agent_message_chunk") {
			text.WriteString(f.Update(t).Update.Content.Text)
		}
		return strings.HasPrefix(text.String(), "one")
	})
	anchor := seen[len(seen)-1].Update(t).Meta.Hydra.MessageID
	detach := c.Call("session/detach", map[string]any{"sessionId": sid})
	c.WaitAnswerWithin(detach, wait)
	time.Sleep(500 * time.Millisecond) // "two three " is committed meanwhile

	replayed, res := c.Attach(map[string]any{"sessionId": sid, "historyPolicy": "after_message", "afterMessageId": anchor})
	testkit.Equal(t, res.HistoryPolicy, "after_message")
	testkit.Equal(t, res.Replayed, len(replayed))
	live := c.UntilWithin(wait, func(f acpclient.Frame) bool { return f.IsUpdate("turn_complete") })
	all := append(replayed, live...)
	testkit.Equal(t, text.String()+acpclient.Chunks(t, all), "one two three four")
	testkit.Equal(t, acpclient.Chunks(t, replayed) != "", true)
	assertIncreasing(t, all)
	a.WaitAnswerWithin(pid, wait)

	d := r.dial(t, "late")
	replayed, res = d.Attach(map[string]any{"sessionId": sid, "historyPolicy": "after_message", "afterMessageId": "nowhere"})
	testkit.Equal(t, res.HistoryPolicy, "full")
	testkit.Equal(t, acpclient.Chunks(t, replayed), "one two three four")
	testkit.Equal(t, acpclient.Count(replayed, "user_message_chunk"), 1)
}

// Each attached client is asked; the first answer wins, the others are
// told permission_resolved. A client attaching while the request is open
// is asked too, and here its answer is the first.
func TestWebSocketPermissionRace(t *testing.T) {
	r := newWSRig(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.ToolCall("c1", "bash", `{"command":"echo raced"}`)),
		llmserver.Steps(llmserver.Text("ok")),
	}}, event.ApprovalDefault, nil)
	a := r.dial(t, "editor")
	sid, _ := a.NewSession(r.cwd)
	b := r.dial(t, "browser")
	b.Attach(map[string]any{"sessionId": sid, "historyPolicy": "full"})
	pid := a.Prompt(sid, "run it")
	isAsk := func(f acpclient.Frame) bool { return f.Method == "session/request_permission" }
	a.UntilWithin(wait, isAsk)
	b.UntilWithin(wait, isAsk)

	c := r.dial(t, "late")
	c.Attach(map[string]any{"sessionId": sid, "historyPolicy": "pending_only"})
	ask := c.UntilWithin(wait, isAsk)
	askID := ask[len(ask)-1].ID
	c.AnswerPermission(askID, "allow_once")

	for _, cl := range []*acpclient.Client{a, b} {
		fs := cl.UntilWithin(wait, func(f acpclient.Frame) bool { return f.IsUpdate("permission_resolved") })
		u := fs[len(fs)-1].Update(t)
		testkit.Equal(t, u.Update.ToolCallID, "c1")
		testkit.Equal(t, u.Update.ResolvedBy, "late") // its clientInfo name
	}
	// A late answer loses: the call already ran once.
	b.AnswerPermission(1, "reject_once")
	fs := a.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Answers(pid) })
	testkit.Equal(t, string(fs[len(fs)-1].Result), `{"stopReason":"end_turn"}`)
	completed := 0
	for _, f := range fs {
		if f.IsUpdate("tool_call_update") && strings.Contains(f.Raw, `"status":"completed"`) && strings.Contains(f.Raw, "raced") {
			completed++
		}
	}
	testkit.Equal(t, completed, 1)
}

// A read-only attachment observes but may change nothing: -32011.
func TestWebSocketReadonly(t *testing.T) {
	r := newWSRig(t, llmserver.Script{}, event.ApprovalYolo, nil)
	a := r.dial(t, "editor")
	sid, _ := a.NewSession(r.cwd)
	v := r.dial(t, "viewer")
	v.Attach(map[string]any{"sessionId": sid, "_meta": map[string]any{"hydra-acp": map[string]any{"readonly": true}}})
	for _, m := range []struct {
		method string
		params map[string]any
	}{
		{"session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "x"}}}},
		{"session/set_mode", map[string]any{"sessionId": sid, "modeId": "yolo"}},
		{"hydra-acp/prompt/cancel", map[string]any{"sessionId": sid, "messageId": "m"}},
	} {
		f := v.WaitAnswerWithin(v.Call(m.method, m.params), wait)
		if f.Error == nil || f.Error.Code != acp.CodePermissionDenied {
			t.Errorf("%s: got %s, want error %d", m.method, f.Raw, acp.CodePermissionDenied)
		}
	}
	// The connection stays usable, and bad frames are answered in kind.
	testkit.NoError(t, v.WS.WriteMessage(1, []byte("{oops")))
	f := v.Read(wait)
	testkit.Equal(t, f.Error.Code, jsonrpc.CodeParseError)
	testkit.Equal(t, string(f.ID), "null")
	f = v.WaitAnswerWithin(v.Call("session/list", map[string]any{}), wait)
	testkit.Equal(t, f.Error == nil, true)
}

// assertIncreasing: the updates' events come once each, in log order;
// every update carries its anchor.
func assertIncreasing(t testing.TB, fs []acpclient.Frame) {
	t.Helper()
	assertAnchors(t, fs, true)
}

// assertNonDecreasing: the updates' anchors never go back (several
// updates may share one event's); every update carries its anchor.
func assertNonDecreasing(t testing.TB, fs []acpclient.Frame) {
	t.Helper()
	assertAnchors(t, fs, false)
}

func assertAnchors(t testing.TB, fs []acpclient.Frame, strict bool) {
	t.Helper()
	var last acpupdate.Position
	for _, f := range fs {
		if f.Method != "session/update" {
			continue
		}
		n, ok := acpclient.Position(t, f)
		if !ok {
			if !acpupdate.State(f.Update(t).Update.SessionUpdate) {
				t.Fatalf("update without its id: %s", f.Raw)
			}
			continue // the state a replay closes with
		}
		if c := n.Compare(last); c < 0 || strict && c == 0 {
			t.Fatalf("update at %+v after %+v: %s", n, last, f.Raw)
		}
		last = n
	}
}

// replayMode drip sends the history one update at a time (spaced as it
// was recorded, the gaps divided by dripSpeed), then answers: the same
// updates as an instant replay, in the same order.
func TestWebSocketDripReplay(t *testing.T) {
	r := newWSRig(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("slow"), llmserver.Delay(400*time.Millisecond), llmserver.Text(" reply")),
	}}, event.ApprovalYolo, nil)
	a := r.dial(t, "editor")
	sid, _ := a.NewSession(r.cwd)
	a.WaitAnswerWithin(a.Prompt(sid, "go"), wait)

	instant := r.dial(t, "instant")
	want, _ := instant.Attach(map[string]any{"sessionId": sid})
	d := r.dial(t, "drip")
	got, res := d.Attach(map[string]any{"sessionId": sid, "_meta": map[string]any{"hydra-acp": map[string]any{"replayMode": "drip", "dripSpeed": 2}}})
	testkit.Equal(t, res.Replayed, len(want))
	testkit.Equal(t, len(got), len(want))
	for i := range got {
		testkit.Equal(t, got[i].Raw, want[i].Raw)
	}
}

// hydra-acp/session/fork branches at a turn boundary: the fork's model
// sees the conversation up to that turn's end, not what came after.
func TestWebSocketFork(t *testing.T) {
	r := newWSRig(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("answer one")), llmserver.Steps(llmserver.Text("answer two")),
		llmserver.Steps(llmserver.Text("forked answer")),
	}}, event.ApprovalYolo, nil)
	a := r.dial(t, "editor")
	sid, _ := a.NewSession(r.cwd)
	p1 := a.Prompt(sid, "first question")
	fs := a.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Answers(p1) })
	var first string
	for _, f := range fs {
		if f.Method == "hydra-acp/prompt_queue/added" {
			first = f.QueueNote(t).MessageID
		}
	}
	a.WaitAnswerWithin(a.Prompt(sid, "second question"), wait)

	var res struct {
		SessionID           string `json:"sessionId"`
		ForkedFromSessionID string `json:"forkedFromSessionId"`
		ForkedFromMessageID string `json:"forkedFromMessageId"`
	}
	a.WaitAnswerWithin(a.Call("hydra-acp/session/fork", map[string]any{"sessionId": sid, "forkAt": first}), wait).Decode(t, &res)
	testkit.Equal(t, res.ForkedFromSessionID, sid)
	testkit.Equal(t, res.ForkedFromMessageID, first)
	f := a.WaitAnswerWithin(a.Call("hydra-acp/session/fork", map[string]any{"sessionId": sid, "forkAt": "msg-unknown"}), wait)
	testkit.Equal(t, f.Error.Code, jsonrpc.CodeInvalidParams)

	a.WaitAnswerWithin(a.Call("session/load", map[string]any{"sessionId": res.SessionID, "cwd": r.cwd, "mcpServers": []any{}}), wait)
	p3 := a.Prompt(res.SessionID, "third question")
	fs = a.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Answers(p3) })
	testkit.Equal(t, acpclient.Chunks(t, fs), "forked answer")
	reqs := r.p.Requests()
	sent := fmt.Sprint(reqs[len(reqs)-1].Messages)
	if !strings.Contains(sent, "first question") || !strings.Contains(sent, "answer one") || strings.Contains(sent, "second question") {
		t.Fatalf("the fork's model should see the first turn alone; it was sent %s", sent)
	}
}

// session/close stops the session (cold; the other clients hear
// hydra-acp/session/closed) and it can be loaded again; session/delete
// removes it: it is no longer listed and loading it is SessionNotFound.
func TestWebSocketCloseAndDelete(t *testing.T) {
	r := newWSRig(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("kept"))}}, event.ApprovalYolo, nil)
	a := r.dial(t, "editor")
	sid, _ := a.NewSession(r.cwd)
	a.WaitAnswerWithin(a.Prompt(sid, "remember"), wait)
	b := r.dial(t, "browser")
	b.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})

	f := a.WaitAnswerWithin(a.Call("session/close", map[string]any{"sessionId": sid}), wait)
	testkit.Equal(t, f.Error == nil, true)
	b.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Method == "hydra-acp/session/closed" })
	testkit.Eventually(t, wait, "the session listed cold", func() bool {
		return strings.Contains(a.WaitAnswerWithin(a.Call("session/list", map[string]any{}), wait).Raw, `"status":"cold"`)
	})
	id := a.Call("session/load", map[string]any{"sessionId": sid, "cwd": r.cwd, "mcpServers": []any{}})
	fs := a.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Answers(id) })
	testkit.Equal(t, acpclient.Chunks(t, fs), "kept")

	f = a.WaitAnswerWithin(a.Call("session/delete", map[string]any{"sessionId": sid}), wait)
	testkit.Equal(t, f.Error == nil, true)
	f = a.WaitAnswerWithin(a.Call("session/list", map[string]any{}), wait)
	testkit.Equal(t, strings.Contains(f.Raw, sid), false)
	f = a.WaitAnswerWithin(a.Call("session/load", map[string]any{"sessionId": sid, "cwd": r.cwd, "mcpServers": []any{}}), wait)
	testkit.Equal(t, f.Error.Code, acp.CodeSessionNotFound)
}
