package main

import (
	"encoding/json"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
)

type flagsUpdate struct {
	SessionID string
	Flags     []struct {
		Source, Reason string
		RaisedAt       int64
		Payload        map[string]any
	}
}

// waitAttention reads frames up to the next attention_updated.
func waitAttention(t testing.TB, c *acpclient.Client) flagsUpdate {
	t.Helper()
	fs := c.Until(func(f acpclient.Frame) bool { return f.Method == "hydra-acp/session/attention_updated" })
	var u flagsUpdate
	testkit.NoError(t, json.Unmarshal(fs[len(fs)-1].Params, &u))
	return u
}

// hydra-acp/attention/set and clear: the flag is keyed by the caller's
// identity, broadcast to the session's clients, served over REST, and
// still raised after the daemon restarts; clears are idempotent.
func TestDaemonAttentionSetClearSurvivesRestart(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env, model := llmEnv(t)
	d := startDaemon(t, home, env, model...)
	tui := d.dialACP(t, "tui")
	sid, _ := tui.NewSession(work)
	planner := d.dialACP(t, "planner")

	set := func(c *acpclient.Client, params map[string]any) acpclient.Frame {
		return c.WaitAnswer(c.Call("hydra-acp/attention/set", params))
	}
	var ok struct{ OK bool }
	set(planner, map[string]any{"sessionId": sid, "reason": "review", "payload": map[string]any{"step": 2}}).Decode(t, &ok)
	testkit.Equal(t, ok.OK, true)
	u := waitAttention(t, tui)
	if u.SessionID != sid || len(u.Flags) != 1 || u.Flags[0].Source != "planner" || u.Flags[0].Reason != "review" ||
		u.Flags[0].Payload["step"] != float64(2) || u.Flags[0].RaisedAt == 0 {
		t.Fatalf("attention_updated: %+v", u)
	}
	raisedAt := u.Flags[0].RaisedAt

	// The same reason from another raiser is another flag; a new payload
	// replaces the old in place.
	// The raiser watches too: its own broadcast may reach it before or
	// after its answer, so both are read from one stream of frames.
	id := tui.Call("hydra-acp/attention/set", map[string]any{"sessionId": sid, "reason": "review"})
	var own *flagsUpdate
	for answered := false; !answered || own == nil; {
		f := tui.Read(tui.Wait)
		switch {
		case f.Answers(id):
			f.Decode(t, &ok)
			answered = true
		case f.Method == "hydra-acp/session/attention_updated":
			own = new(flagsUpdate)
			testkit.NoError(t, json.Unmarshal(f.Params, own))
		}
	}
	testkit.Equal(t, ok.OK, true)
	testkit.Equal(t, len(own.Flags), 2)
	set(planner, map[string]any{"sessionId": sid, "reason": "review", "payload": map[string]any{"step": 3}}).Decode(t, &ok)
	u = waitAttention(t, tui)
	if len(u.Flags) != 2 || u.Flags[0].Source != "planner" || u.Flags[0].Payload["step"] != float64(3) || u.Flags[0].RaisedAt != raisedAt ||
		u.Flags[1].Source != "tui" {
		t.Fatalf("after the update: %+v", u)
	}

	for _, bad := range []struct {
		params map[string]any
		code   int
	}{
		{map[string]any{"sessionId": sid}, -32602},
		{map[string]any{"sessionId": sid, "reason": 7}, -32602},
		{map[string]any{"reason": "review"}, -32602},
		{map[string]any{"sessionId": "nope", "reason": "review"}, -32001},
	} {
		f := set(planner, bad.params)
		if f.Error == nil || f.Error.Code != bad.code {
			t.Fatalf("set %v: %s, want error %d", bad.params, f.Raw, bad.code)
		}
	}

	var entry struct{ AwaitingInput bool }
	d.call(t, "GET", "/v1/sessions/"+sid, nil, http.StatusOK, &entry)
	testkit.Equal(t, entry.AwaitingInput, true)

	d.proc.Signal(syscall.SIGTERM)
	testkit.Equal(t, d.proc.Wait(t, 30*time.Second), 0)
	d = startDaemon(t, home, env, model...)
	var got attentionFlags
	d.call(t, "GET", "/v1/sessions/"+sid+"/attention", nil, http.StatusOK, &got)
	if len(got.Flags) != 2 || got.Flags[0].Source != "planner" || got.Flags[0].Reason != "review" || got.Flags[0].RaisedAt != raisedAt ||
		got.Flags[1].Source != "tui" {
		t.Fatalf("after restart: %+v", got)
	}
	d.call(t, "GET", "/v1/sessions/attention?source=planner", nil, http.StatusOK, &got)
	if len(got.Flags) != 1 || got.Flags[0].SessionID != sid {
		t.Fatalf("by source after restart: %+v", got)
	}

	// A client attaching after the restart sees them raised, and their
	// clears as they happen.
	tui = d.dialACP(t, "tui")
	var attached struct {
		Meta struct {
			Hydra struct{ AwaitingInput bool } `json:"hydra-acp"`
		} `json:"_meta"`
	}
	tui.WaitAnswer(tui.Call("session/load", map[string]any{"sessionId": sid, "cwd": work, "mcpServers": []any{}})).Decode(t, &attached)
	testkit.Equal(t, attached.Meta.Hydra.AwaitingInput, true)
	if u = waitAttention(t, tui); len(u.Flags) != 2 || u.Flags[0].RaisedAt != raisedAt {
		t.Fatalf("attention on attach after restart: %+v", u)
	}
	planner = d.dialACP(t, "planner")
	clear := func(c *acpclient.Client, reason string) {
		c.WaitAnswer(c.Call("hydra-acp/attention/clear", map[string]any{"sessionId": sid, "reason": reason})).Decode(t, &ok)
		testkit.Equal(t, ok.OK, true)
	}
	clear(planner, "review")
	u = waitAttention(t, tui)
	if len(u.Flags) != 1 || u.Flags[0].Source != "tui" {
		t.Fatalf("after the planner's clear: %+v", u)
	}
	clear(planner, "review") // idempotent

	// The user's emergency clear of everything left.
	d.call(t, "POST", "/v1/sessions/"+sid+"/attention/clear", map[string]any{}, http.StatusOK, &got)
	testkit.Equal(t, len(got.Flags), 0)
	testkit.Equal(t, len(waitAttention(t, tui).Flags), 0)
	wantError(t, d.do(t, "POST", "/v1/sessions/nope/attention/clear", map[string]any{}), http.StatusNotFound)
	wantError(t, d.do(t, "POST", "/v1/sessions/"+sid+"/attention/clear", map[string]any{"reason": "review"}), http.StatusBadRequest)
}
