package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// /acp lets in a token given as a subprotocol entry or ?token= and echoes
// acp.v1 alone; a missing or wrong token is refused 401 and a foreign
// Origin 403, both before any upgrade.
func TestDaemonACPAuth(t *testing.T) {
	d := startDaemon(t, t.TempDir(), nil)
	c := d.dialACP(t, "editor")
	testkit.Equal(t, c.Subprotocol, "acp.v1")

	testkit.Equal(t, acpclient.DialStatus(t, d.wsURL("token="+d.token), nil, "acp.v1"), http.StatusSwitchingProtocols)
	for name, try := range map[string]func() int{
		"no token":           func() int { return acpclient.DialStatus(t, d.wsURL(""), nil, "acp.v1") },
		"wrong subprotocol":  func() int { return acpclient.DialStatus(t, d.wsURL(""), nil, "acp.v1", "hydra-acp-token.nope") },
		"wrong query token":  func() int { return acpclient.DialStatus(t, d.wsURL("token=nope"), nil, "acp.v1") },
		"empty query token":  func() int { return acpclient.DialStatus(t, d.wsURL("token="), nil) },
		"bearer of a prefix": func() int { return acpclient.DialStatus(t, d.wsURL("token="+d.token[:len(d.token)-1]), nil) },
	} {
		if got := try(); got != http.StatusUnauthorized {
			t.Fatalf("%s: status %d, want 401", name, got)
		}
	}
	foreign := http.Header{"Origin": {"https://evil.example"}}
	testkit.Equal(t, acpclient.DialStatus(t, d.wsURL("token="+d.token), foreign, "acp.v1"), http.StatusForbidden)
	own := http.Header{"Origin": {d.url}}
	testkit.Equal(t, acpclient.DialStatus(t, d.wsURL("token="+d.token), own, "acp.v1"), http.StatusSwitchingProtocols)

	// The refusals cost nothing: the first connection still works.
	if sid, _ := c.NewSession(t.TempDir()); sid == "" {
		t.Fatal("session/new answered no session id")
	}
}

// Two clients on one session over the daemon: the prompt's sender gets
// the stream and the answer; the other sees prompt_received, the same
// stream and turn_complete. A third attaching mid-turn after_message the
// last update it saw gets exactly what it missed, then live, nothing twice.
func TestDaemonACPTwoClientsAndLateAttach(t *testing.T) {
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("one "), llmserver.Delay(300*time.Millisecond),
		llmserver.Text("two "), llmserver.Text("three "), llmserver.Delay(700*time.Millisecond), llmserver.Text("four")))
	d := startDaemon(t, t.TempDir(), env, append(model, "--approval-mode", "yolo")...)
	a := d.dialACP(t, "editor")
	sid, _ := a.NewSession(t.TempDir())
	b := d.dialACP(t, "browser")
	b.Attach(map[string]any{"sessionId": sid, "historyPolicy": "full"})
	c := d.dialACP(t, "phone")
	c.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})

	pid := a.Prompt(sid, "count")
	var seen strings.Builder
	first := c.Until(func(f acpclient.Frame) bool {
		if f.IsUpdate("agent_message_chunk") {
			seen.WriteString(f.Update(t).Update.Content.Text)
		}
		return strings.HasPrefix(seen.String(), "one")
	})
	anchor := first[len(first)-1].Update(t).Meta.Hydra.MessageID
	c.WaitAnswer(c.Call("session/detach", map[string]any{"sessionId": sid}))
	time.Sleep(500 * time.Millisecond) // "two three " is committed meanwhile

	replayed, res := c.Attach(map[string]any{"sessionId": sid, "historyPolicy": "after_message", "afterMessageId": anchor})
	testkit.Equal(t, res.HistoryPolicy, "after_message")
	testkit.Equal(t, res.Replayed, len(replayed))
	testkit.Equal(t, acpclient.Chunks(t, replayed) != "", true)
	live := c.Until(func(f acpclient.Frame) bool { return f.IsUpdate("turn_complete") })
	all := append(append(first, replayed...), live...)
	acpclient.RequireIncreasing(t, all)
	testkit.Equal(t, acpclient.Chunks(t, all), "one two three four")

	aFrames := a.Until(func(f acpclient.Frame) bool { return f.Answers(pid) })
	testkit.Equal(t, string(aFrames[len(aFrames)-1].Result), `{"stopReason":"end_turn"}`)
	testkit.Equal(t, acpclient.Chunks(t, aFrames), "one two three four")
	testkit.Equal(t, acpclient.Count(aFrames, "prompt_received"), 0)
	acpclient.RequireIncreasing(t, aFrames)

	bFrames := b.Until(func(f acpclient.Frame) bool { return f.IsUpdate("turn_complete") })
	testkit.Equal(t, acpclient.Chunks(t, bFrames), "one two three four")
	testkit.Equal(t, acpclient.Count(bFrames, "prompt_received"), 1)
	testkit.Equal(t, bFrames[len(bFrames)-1].Update(t).Update.StopReason, "end_turn")
	acpclient.RequireIncreasing(t, bFrames)
}

// Each attached client is asked for the permission; the first answer wins
// and the other is told permission_resolved; the tool runs once.
func TestDaemonACPPermissionRace(t *testing.T) {
	env, model := llmEnv(t, llmserver.Steps(llmserver.ToolCall("c1", "bash", `{"command":"echo raced"}`)),
		llmserver.Steps(llmserver.Text("ok")))
	d := startDaemon(t, t.TempDir(), env, model...)
	a := d.dialACP(t, "editor")
	sid, _ := a.NewSession(t.TempDir())
	b := d.dialACP(t, "browser")
	b.Attach(map[string]any{"sessionId": sid, "historyPolicy": "full"})
	pid := a.Prompt(sid, "run it")
	isAsk := func(f acpclient.Frame) bool { return f.Method == "session/request_permission" }
	askedA := a.Until(isAsk)
	asked := b.Until(isAsk)
	b.AnswerPermission(asked[len(asked)-1].ID, "allow_once")

	fs := a.Until(func(f acpclient.Frame) bool { return f.IsUpdate("permission_resolved") })
	u := fs[len(fs)-1].Update(t)
	testkit.Equal(t, u.Update.ToolCallID, "c1")
	testkit.Equal(t, u.Update.ResolvedBy, "browser") // its clientInfo name, not its id
	// The loser's late answer changes nothing: the call runs once.
	a.AnswerPermission(askedA[len(askedA)-1].ID, "reject_once")
	fs = a.Until(func(f acpclient.Frame) bool { return f.Answers(pid) })
	testkit.Equal(t, string(fs[len(fs)-1].Result), `{"stopReason":"end_turn"}`)
	ran := 0
	for _, f := range fs {
		if f.IsUpdate("tool_call_update") && strings.Contains(f.Raw, `"status":"completed"`) && strings.Contains(f.Raw, "raced") {
			ran++
		}
	}
	testkit.Equal(t, ran, 1)
}

// REST entries count the clients attached over /acp and show a
// permission request they see open as awaitingInput, in the list and by
// id: REST and the WebSocket share one hub.
func TestDaemonRESTEntriesShowACPClients(t *testing.T) {
	env, model := llmEnv(t, llmserver.Steps(llmserver.ToolCall("c1", "bash", `{"command":"echo asked"}`)),
		llmserver.Steps(llmserver.Text("done")))
	d := startDaemon(t, t.TempDir(), env, model...)
	entry := func(id string) (byID, listed sessionEntry) {
		d.call(t, "GET", "/v1/sessions/"+id, nil, http.StatusOK, &byID)
		var list struct{ Sessions []sessionEntry }
		d.call(t, "GET", "/v1/sessions", nil, http.StatusOK, &list)
		for _, e := range list.Sessions {
			if e.SessionID == id {
				listed = e
			}
		}
		testkit.Equal(t, listed.SessionID, id)
		return byID, listed
	}
	idle := d.create(t, t.TempDir())
	a := d.dialACP(t, "editor")
	sid, _ := a.NewSession(t.TempDir())
	b := d.dialACP(t, "browser")
	b.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})
	e, l := entry(sid)
	testkit.Equal(t, e.AttachedClients, 2)
	testkit.Equal(t, l.AttachedClients, 2)
	testkit.Equal(t, e.AwaitingInput || e.Busy, false)
	e, _ = entry(idle)
	testkit.Equal(t, e.AttachedClients, 0)

	pid := a.Prompt(sid, "run it")
	asked := a.Until(func(f acpclient.Frame) bool { return f.Method == "session/request_permission" })
	// The hub hears of the request in the same step that sends it, so just
	// after the client does.
	testkit.Eventually(t, acpWait, "awaitingInput and busy", func() bool {
		e, l := entry(sid)
		return e.AwaitingInput && e.Busy && l.AwaitingInput && l.Busy
	})
	a.AnswerPermission(asked[len(asked)-1].ID, "allow_once")
	a.WaitAnswer(pid)
	testkit.Eventually(t, acpWait, "awaitingInput and busy cleared", func() bool {
		e, l := entry(sid)
		return !e.AwaitingInput && !l.AwaitingInput && !e.Busy
	})

	b.WaitAnswer(b.Call("session/detach", map[string]any{"sessionId": sid}))
	e, _ = entry(sid)
	testkit.Equal(t, e.AttachedClients, 1)
}

// A session created over /acp is the daemon's: `troupe run` on the same
// home is refused naming the holder, and so is an attach from `troupe acp`;
// a read-only attach there watches it from the store.
func TestDaemonACPSessionLeaseRefusesOtherProcesses(t *testing.T) {
	home := t.TempDir()
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("mine")), llmserver.Steps(llmserver.Text("again")))
	d := startDaemon(t, home, env, model...)
	a := d.dialACP(t, "editor")
	sid, _ := a.NewSession(t.TempDir())
	pid := a.Prompt(sid, "hi")
	fs := a.Until(func(f acpclient.Frame) bool { return f.Answers(pid) })
	testkit.Equal(t, acpclient.Chunks(t, fs), "mine")

	code, out := runPrompt(t, home, env, model, sid, "steal")
	if code == 0 || !strings.Contains(out, "troupe daemon") {
		t.Fatalf("troupe run on a session the daemon holds over /acp: exit %d\n%s", code, out)
	}

	stdio := testkit.Start(t, testkit.BuildTroupe(t), env, append([]string{"acp", "--home", home}, model...)...)
	send := func(id int, method string, params any) {
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		testkit.NoError(t, err)
		_, err = stdio.Stdin.Write(append(b, '\n'))
		testkit.NoError(t, err)
	}
	next := func() acpclient.Frame {
		line, ok := stdio.ReadLine(acpWait)
		if !ok {
			t.Fatalf("troupe acp: no message in %s; stderr %s", acpWait, stdio.Stderr())
		}
		return acpclient.Parse(t, []byte(line))
	}
	answer := func(id int) acpclient.Frame {
		for {
			if f := next(); f.Answers(id) {
				return f
			}
		}
	}
	send(1, "initialize", map[string]any{"protocolVersion": 1})
	answer(1)
	send(2, "session/attach", map[string]any{"sessionId": sid, "historyPolicy": "none"})
	if f := answer(2); f.Error == nil || !strings.Contains(f.Error.Message, "troupe daemon") {
		t.Fatalf("troupe acp attach to a session the daemon holds: %s", f.Raw)
	}
	// Read-only, troupe acp watches it from the store.
	send(3, "session/attach", map[string]any{"sessionId": sid, "historyPolicy": "full",
		"_meta": map[string]any{"hydra-acp": map[string]any{"readonly": true}}})
	var replayed []acpclient.Frame
	for f := next(); !f.Answers(3); f = next() {
		replayed = append(replayed, f)
	}
	testkit.Equal(t, acpclient.Chunks(t, replayed), "mine")

	// The daemon still writes it, and the watcher sees that.
	pid = a.Prompt(sid, "more")
	fs = a.Until(func(f acpclient.Frame) bool { return f.Answers(pid) })
	testkit.Equal(t, acpclient.Chunks(t, fs), "again")
	var watched []acpclient.Frame
	for f := next(); ; f = next() {
		watched = append(watched, f)
		if f.IsUpdate("turn_complete") {
			break
		}
	}
	testkit.Equal(t, acpclient.Chunks(t, watched), "again")
	acpclient.RequireIncreasing(t, append(replayed, watched...))
}

// A read-only attach to a cold session replays it from the store without
// starting it: REST still says cold and no lease is taken, so `troupe
// run` may prompt it meanwhile, and the watcher sees that run from the
// store too.
func TestDaemonACPReadonlyAttachLeavesSessionCold(t *testing.T) {
	home := t.TempDir()
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("first")), llmserver.Steps(llmserver.Text("second")))
	d := startDaemon(t, home, env, append(model, "--approval-mode", "yolo")...)
	a := d.dialACP(t, "editor")
	sid, _ := a.NewSession(t.TempDir())
	pid := a.Prompt(sid, "hi")
	a.WaitAnswer(pid)
	testkit.Equal(t, d.do(t, "POST", "/v1/sessions/"+sid+"/kill", nil).StatusCode, http.StatusAccepted)
	a.Until(func(f acpclient.Frame) bool { return f.Method == "hydra-acp/session/closed" })
	var e sessionEntry
	d.call(t, "GET", "/v1/sessions/"+sid, nil, http.StatusOK, &e)
	testkit.Equal(t, e.Status, "cold")

	w := d.dialACP(t, "watcher")
	replayed, _ := w.Attach(map[string]any{"sessionId": sid, "historyPolicy": "full", "_meta": map[string]any{"hydra-acp": map[string]any{"readonly": true}}})
	testkit.Equal(t, acpclient.Chunks(t, replayed), "first")
	d.call(t, "GET", "/v1/sessions/"+sid, nil, http.StatusOK, &e)
	testkit.Equal(t, e.Status, "cold")
	testkit.Equal(t, e.AttachedClients, 2)

	if code, out := runPrompt(t, home, env, model, sid, "again"); code != 0 {
		t.Fatalf("troupe run while the daemon only watches the session: exit %d\n%s", code, out)
	}
	live := w.Until(func(f acpclient.Frame) bool { return f.IsUpdate("turn_complete") })
	testkit.Equal(t, acpclient.Chunks(t, live), "second")
	acpclient.RequireIncreasing(t, append(replayed, live...))
	d.call(t, "GET", "/v1/sessions/"+sid, nil, http.StatusOK, &e)
	testkit.Equal(t, e.Status, "cold")
}
