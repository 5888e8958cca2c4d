package acp_test

import (
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// listed is one session/list entry's hydra fields.
type listed struct {
	SessionID string `json:"sessionId"`
	Meta      struct {
		Hydra struct {
			Busy bool `json:"busy"`
		} `json:"hydra-acp"`
	} `json:"_meta"`
}

// busyIn is session sid's busy in c's session/list.
func busyIn(t *testing.T, c *acpclient.Client, sid string) bool {
	t.Helper()
	var res struct {
		Sessions []listed `json:"sessions"`
	}
	c.WaitAnswerWithin(c.Call("session/list", map[string]any{}), wait).Decode(t, &res)
	for _, s := range res.Sessions {
		if s.SessionID == sid {
			return s.Meta.Hydra.Busy
		}
	}
	t.Fatalf("session %s not listed", sid)
	return false
}

// session/list says a session is busy while its run is under way, to a
// connection that is not attached to it too.
func TestSessionListBusyForSessionsNotAttached(t *testing.T) {
	r := newWSRig(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("working"), llmserver.Delay(3*time.Second), llmserver.Text(" done")),
	}}, event.ApprovalYolo, nil)
	a := r.dial(t, "a")
	sid, _ := a.NewSession(r.cwd)
	p := a.Prompt(sid, "go")
	a.UntilWithin(wait, func(f acpclient.Frame) bool { return f.IsUpdate("agent_message_chunk") })
	b := r.dial(t, "b")
	testkit.Equal(t, busyIn(t, b, sid), true)
	a.WaitAnswerWithin(p, wait)
	testkit.Equal(t, busyIn(t, b, sid), false)
}

// initialize advertises sessionCapabilities.fork, and session/fork is
// served as Hydra serves it: from a connection not attached to the
// source, the fork is made at its latest ended turn and the caller is
// attached to it, answered as session/load is.
func TestSessionForkIsServed(t *testing.T) {
	done := llmserver.Steps(llmserver.Text("done"))
	r := newHydraRig(t, llmserver.Script{Model: "tiny", Default: &done})
	a := r.dial(t, "a")
	sid, _ := a.NewSession(r.cwd)
	a.WaitAnswerWithin(a.Prompt(sid, "hi"), wait)

	b := r.dial(t, "b")
	f := answerOf(b, b.Call("session/fork", map[string]any{"sessionId": sid, "cwd": r.cwd, "mcpServers": []any{}}))
	if f.Error != nil {
		t.Fatalf("session/fork: %s", f.Raw)
	}
	requirePalette(t, "session/fork", f)
	var res struct {
		SessionID string `json:"sessionId"`
		Meta      struct {
			Hydra struct {
				ClientID string `json:"clientId"`
			} `json:"hydra-acp"`
		} `json:"_meta"`
	}
	f.Decode(t, &res)
	if res.SessionID == "" || res.SessionID == sid || res.Meta.Hydra.ClientID == "" {
		t.Fatalf("session/fork answered %s", f.Raw)
	}
	// b is attached to the fork: it prompts it as its own.
	again := b.Prompt(res.SessionID, "again")
	fs := b.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Answers(again) })
	if last := fs[len(fs)-1]; last.Error != nil {
		t.Fatalf("prompt on the fork: %s", last.Raw)
	}
	f = answerOf(b, b.Call("session/fork", map[string]any{"sessionId": "s-nope"}))
	if f.Error == nil || f.Error.Code != -32001 {
		t.Errorf("session/fork of an unknown session: %s, want -32001", f.Raw)
	}
}

// initialize says MCP servers over HTTP and SSE are taken, as they are.
func TestInitializeAdvertisesHTTPAndSSEMCP(t *testing.T) {
	r := newWSRig(t, llmserver.Script{}, event.ApprovalYolo, nil)
	c := r.dial(t, "c")
	var res struct {
		AgentCapabilities struct {
			MCPCapabilities map[string]bool `json:"mcpCapabilities"`
		} `json:"agentCapabilities"`
	}
	c.WaitAnswerWithin(c.Call("initialize", map[string]any{"protocolVersion": 1}), wait).Decode(t, &res)
	testkit.Equal(t, res.AgentCapabilities.MCPCapabilities["http"], true)
	testkit.Equal(t, res.AgentCapabilities.MCPCapabilities["sse"], true)
}

// sessionFields are the _meta["hydra-acp"] fields Hydra's clients read
// off an attach answer beyond the list's.
type sessionFields struct {
	TurnStartedAt int64 `json:"turnStartedAt"`
	CurrentUsage  *struct {
		Used int64 `json:"used"`
		Size int64 `json:"size"`
	} `json:"currentUsage"`
	ForkedFromSessionID string `json:"forkedFromSessionId"`
	ForkedFromMessageID string `json:"forkedFromMessageId"`
	OriginatingClient   *struct {
		Name string `json:"name"`
	} `json:"originatingClient"`
	Interactive       *bool          `json:"interactive"`
	AgentCapabilities map[string]any `json:"agentCapabilities"`
}

func fieldsOf(t *testing.T, f acpclient.Frame) sessionFields {
	t.Helper()
	var res struct {
		Meta struct {
			Hydra sessionFields `json:"hydra-acp"`
		} `json:"_meta"`
	}
	f.Decode(t, &res)
	return res.Meta.Hydra
}

// An attach answer's _meta says when the turn under way started, the
// usage so far, where a fork came from, which client made the session,
// whether it is interactive and what the agent can do.
func TestAttachMetaCarriesHydrasSessionFields(t *testing.T) {
	r := newHydraRig(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("working"), llmserver.Delay(2*time.Second), llmserver.Text(" done")),
	}})
	a := r.dial(t, "zed")
	nf := a.WaitAnswerWithin(a.Call("session/new", map[string]any{"cwd": r.cwd, "mcpServers": []any{},
		"_meta": map[string]any{"hydra-acp": map[string]any{"interactive": true}}}), wait)
	var created struct {
		SessionID string `json:"sessionId"`
	}
	nf.Decode(t, &created)
	sid := created.SessionID
	p := a.Prompt(sid, "go")
	a.UntilWithin(wait, func(f acpclient.Frame) bool { return f.IsUpdate("agent_message_chunk") })

	b := r.dial(t, "b")
	got := fieldsOf(t, answerOf(b, b.Call("session/attach", map[string]any{"sessionId": sid, "historyPolicy": "none"})))
	if got.TurnStartedAt <= 0 {
		t.Errorf("mid-turn attach: turnStartedAt %d", got.TurnStartedAt)
	}
	if got.OriginatingClient == nil || got.OriginatingClient.Name != "zed" {
		t.Errorf("originatingClient %+v, want zed", got.OriginatingClient)
	}
	if got.Interactive == nil || !*got.Interactive {
		t.Errorf("interactive %v, want true", got.Interactive)
	}
	if _, ok := got.AgentCapabilities["mcpCapabilities"]; !ok {
		t.Errorf("agentCapabilities %v", got.AgentCapabilities)
	}
	a.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Answers(p) })

	c := r.dial(t, "c")
	got = fieldsOf(t, answerOf(c, c.Call("session/attach", map[string]any{"sessionId": sid, "historyPolicy": "none"})))
	if got.TurnStartedAt != 0 {
		t.Errorf("after the turn: turnStartedAt %d", got.TurnStartedAt)
	}
	if got.CurrentUsage == nil || got.CurrentUsage.Size != 8192 {
		t.Errorf("currentUsage %+v, want the model's context window as size", got.CurrentUsage)
	}

	var fork struct {
		SessionID           string `json:"sessionId"`
		ForkedFromMessageID string `json:"forkedFromMessageId"`
	}
	a.WaitAnswerWithin(a.Call("hydra-acp/session/fork", map[string]any{"sessionId": sid}), wait).Decode(t, &fork)
	got = fieldsOf(t, answerOf(c, c.Call("session/attach", map[string]any{"sessionId": fork.SessionID, "historyPolicy": "none"})))
	testkit.Equal(t, got.ForkedFromSessionID, sid)
	if got.ForkedFromMessageID == "" {
		t.Errorf("no forkedFromMessageId")
	}
	testkit.Equal(t, got.ForkedFromMessageID, fork.ForkedFromMessageID)
}

// statusIn is session sid's status in c's session/list.
func statusIn(t *testing.T, c *acpclient.Client, sid string) string {
	t.Helper()
	var res struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
			Meta      struct {
				Hydra struct {
					Status string `json:"status"`
				} `json:"hydra-acp"`
			} `json:"_meta"`
		} `json:"sessions"`
	}
	c.WaitAnswerWithin(c.Call("session/list", map[string]any{}), wait).Decode(t, &res)
	for _, s := range res.Sessions {
		if s.SessionID == sid {
			return s.Meta.Hydra.Status
		}
	}
	t.Fatalf("session %s not listed", sid)
	return ""
}

// hydra-acp/session/force_cancel ends a stuck turn by stopping the session
// (its sender's prompt answers cancelled; the session goes cold and wakes
// with the next prompt); hydra-acp/session/load brings a cold session
// live without attaching. Neither answers -32601.
func TestForceCancelAndHydraLoadAreServed(t *testing.T) {
	r := newWSRig(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("working"), llmserver.Delay(30*time.Second), llmserver.Text(" never")),
		llmserver.Steps(llmserver.Text("again")),
	}}, event.ApprovalYolo, nil)
	a := r.dial(t, "a")
	sid, _ := a.NewSession(r.cwd)
	p := a.Prompt(sid, "go")
	a.UntilWithin(wait, func(f acpclient.Frame) bool { return f.IsUpdate("agent_message_chunk") })
	b := r.dial(t, "b")
	b.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})
	// The prompt's own client force-cancels: the stop waits for the run's
	// end on its attachment, so its prompt is answered first (another
	// connection's is too: TestDaemonACPStopAnswersEveryConnectionsPrompt).
	fc := a.Call("hydra-acp/session/force_cancel", map[string]any{"sessionId": sid})
	fs := a.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Answers(p) })
	testkit.Equal(t, string(fs[len(fs)-1].Result), `{"stopReason":"cancelled"}`)
	f := a.WaitAnswerWithin(fc, wait)
	testkit.Equal(t, string(f.Result), `{"stopReason":"cancelled"}`)
	testkit.Equal(t, statusIn(t, b, sid), "cold")
	p = a.Prompt(sid, "again")
	fs = a.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Answers(p) })
	testkit.Equal(t, string(fs[len(fs)-1].Result), `{"stopReason":"end_turn"}`)

	a.WaitAnswerWithin(a.Call("session/close", map[string]any{"sessionId": sid}), wait)
	testkit.Equal(t, statusIn(t, b, sid), "cold")
	c := r.dial(t, "c")
	f = c.WaitAnswerWithin(c.Call("hydra-acp/session/load", map[string]any{"sessionId": sid}), wait)
	if f.Error != nil {
		t.Fatalf("hydra-acp/session/load: %s", f.Raw)
	}
	testkit.Equal(t, statusIn(t, c, sid), "warm")
	f = c.WaitAnswerWithin(c.Call("hydra-acp/session/load", map[string]any{"sessionId": "s-nope"}), wait)
	if f.Error == nil || f.Error.Code != -32001 {
		t.Errorf("hydra-acp/session/load of an unknown session: %s, want -32001", f.Raw)
	}
}

// A transformer's permission request answered by one client is
// permission_resolved to the others with the option chosen named as the
// session's own requests name it (chosenOptionId, which Hydra's TUI and
// shim read, and optionId) and the answer's outcome, not the whole
// answer.
func TestTransformerPermissionResolvedNamesTheOption(t *testing.T) {
	r := newHydraRig(t, llmserver.Script{})
	a := r.dial(t, "a")
	sid, _ := a.NewSession(r.cwd)
	b := r.dial(t, "b")
	b.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})
	tr := acpclient.Dial(t, acpclient.Options{URL: acpclient.URL(r.srv.URL, "", "peer=tr&kind=transformer"),
		Subprotocols: []string{"acp.v1", acpclient.TokenEntry("secret")}, Name: "tr", Wait: 10 * time.Second})
	req := tr.Call("hydra-acp/session/request_permission", map[string]any{"sessionId": sid,
		"toolCall": map[string]any{"toolCallId": "t1", "title": "deploy"},
		"options":  []any{map[string]any{"optionId": "go", "name": "Go", "kind": "allow_once"}}})
	asked := a.UntilWithin(wait, func(f acpclient.Frame) bool { return f.Method == "session/request_permission" })
	a.AnswerPermission(asked[len(asked)-1].ID, "go")
	tr.WaitAnswerWithin(req, wait)
	fs := b.UntilWithin(wait, func(f acpclient.Frame) bool { return f.IsUpdate("permission_resolved") })
	var u struct {
		Update struct {
			ChosenOptionID string `json:"chosenOptionId"`
			OptionID       string `json:"optionId"`
			Outcome        struct {
				Outcome  string `json:"outcome"`
				OptionID string `json:"optionId"`
			} `json:"outcome"`
		} `json:"update"`
	}
	fs[len(fs)-1].DecodeParams(t, &u)
	testkit.Equal(t, u.Update.ChosenOptionID, "go")
	testkit.Equal(t, u.Update.OptionID, "go")
	testkit.Equal(t, u.Update.Outcome.Outcome, "selected")
	testkit.Equal(t, u.Update.Outcome.OptionID, "go")
}
