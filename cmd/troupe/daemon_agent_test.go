package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
)

// A session on an agent the catalogue names runs that agent's program:
// the prompt's reply streams from it (the catalogue's args, then the
// client's agentArgs), is recorded, and a second client attaching
// replays the same turn from the log. An id no catalogue names is still
// refused, -32005 over ACP and 400 over REST.
func TestDaemonExternalAgentStreamsAndReplays(t *testing.T) {
	home, _ := scriptedAgentHome(t, nil)
	d := startDaemon(t, home, nil)
	a := d.dialACP(t, "editor")
	sid := newAgentSession(t, a, t.TempDir(), "scripted", "--from-client")

	fs, stop := promptTurn(t, a, sid, "say hello,\nthink pondering\nplan read;write\nchunks 3 x\nargs")
	testkit.Equal(t, stop, "end_turn")
	testkit.Equal(t, acpclient.Count(fs, "plan"), 1)
	testkit.Equal(t, acpclient.Chunks(t, fs), "hello,xxxargs: --from-config --from-client")
	testkit.Equal(t, acpclient.Count(fs, "agent_thought_chunk"), 1)
	acpclient.RequireIncreasing(t, fs)

	b := d.dialACP(t, "browser")
	replayed, res := b.Attach(map[string]any{"sessionId": sid, "historyPolicy": "full"})
	testkit.Equal(t, res.Replayed, len(replayed))
	testkit.Equal(t, acpclient.Chunks(t, replayed), "hello,xxxargs: --from-config --from-client")
	testkit.Equal(t, acpclient.Count(replayed, "plan"), 1)
	testkit.Equal(t, acpclient.Count(replayed, "agent_thought_chunk"), 1)

	// The attach answer names the agent and the agent's own session.
	var info struct {
		Meta struct {
			Hydra struct {
				AgentID           string `json:"agentId"`
				UpstreamSessionID string `json:"upstreamSessionId"`
			} `json:"hydra-acp"`
		} `json:"_meta"`
	}
	c := d.dialACP(t, "phone")
	c.WaitAnswer(c.Call("session/attach", map[string]any{"sessionId": sid, "historyPolicy": "none"})).Decode(t, &info)
	testkit.Equal(t, info.Meta.Hydra.AgentID, "scripted")
	if !strings.HasPrefix(info.Meta.Hydra.UpstreamSessionID, "up-") {
		t.Fatalf("upstreamSessionId %q is not the agent's", info.Meta.Hydra.UpstreamSessionID)
	}

	ans := a.WaitAnswer(a.Call("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{},
		"_meta": map[string]any{"hydra-acp": map[string]any{"agentId": "nope"}}}))
	if ans.Error == nil || ans.Error.Code != -32005 {
		t.Fatalf("unknown agent: %s", ans.Raw)
	}
	var created map[string]string
	d.call(t, http.MethodPost, "/v1/sessions", map[string]any{"cwd": t.TempDir(), "agentId": "scripted"}, http.StatusCreated, &created)
	testkit.Equal(t, created["agentId"], "scripted")
	d.call(t, http.MethodPost, "/v1/sessions", map[string]any{"cwd": t.TempDir(), "agentId": "nope"}, http.StatusBadRequest, nil)
}

// The agent's permission request goes to every client, a late attacher
// included, and the first answer is the agent's; its fs/* requests are
// served inside the session's directory and refused outside it; its
// terminal runs a command there; its tool calls are the clients' tool
// calls.
func TestDaemonExternalAgentPermissionFilesTerminal(t *testing.T) {
	home, _ := scriptedAgentHome(t, nil)
	d := startDaemon(t, home, nil)
	cwd, outside := t.TempDir(), t.TempDir()
	testkit.NoError(t, os.WriteFile(filepath.Join(cwd, "in.txt"), []byte("inside"), 0o600))
	testkit.NoError(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o600))

	a := d.dialACP(t, "editor")
	sid := newAgentSession(t, a, cwd, "scripted")
	b := d.dialACP(t, "browser")
	b.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})
	id := a.Prompt(sid, strings.Join([]string{
		"tool t1 execute deploy", "ask t1", "done t1 deployed",
		"read " + filepath.Join(cwd, "in.txt"),
		"write " + filepath.Join(cwd, "out.txt") + " written",
		"read " + filepath.Join(outside, "secret.txt"),
		"write " + filepath.Join(outside, "evil.txt") + " x",
		"run echo hi",
	}, "\n"))
	isAsk := func(f acpclient.Frame) bool { return f.Method == "session/request_permission" }
	before := a.Until(isAsk)
	b.Until(isAsk)
	// Re-issued to a client that attaches while it is open.
	c := d.dialACP(t, "phone")
	c.Attach(map[string]any{"sessionId": sid, "historyPolicy": "pending_only"})
	asked := c.Until(isAsk)
	var req struct {
		ToolCall struct {
			ToolCallID string `json:"toolCallId"`
		} `json:"toolCall"`
		Options []struct {
			OptionID string `json:"optionId"`
		} `json:"options"`
	}
	asked[len(asked)-1].DecodeParams(t, &req)
	testkit.Equal(t, req.ToolCall.ToolCallID, "t1")
	testkit.Equal(t, len(req.Options), 2)
	b.AnswerPermission(asked[len(asked)-1].ID, "yes")

	fs := append(before, a.Until(func(f acpclient.Frame) bool { return f.Answers(id) })...)
	text := acpclient.Chunks(t, fs)
	contains(t, text, "permission t1: yes")
	contains(t, text, "read: inside")
	contains(t, text, "wrote "+filepath.Join(cwd, "out.txt"))
	contains(t, text, "read error:")
	contains(t, text, "write error:")
	contains(t, text, "exit 0: hi")
	if strings.Contains(text, "read: secret") {
		t.Fatalf("a file outside the session's directory was read: %q", text)
	}
	got, err := os.ReadFile(filepath.Join(cwd, "out.txt"))
	testkit.NoError(t, err)
	testkit.Equal(t, string(got), "written")
	if _, err := os.Stat(filepath.Join(outside, "evil.txt")); err == nil {
		t.Fatal("a file outside the session's directory was written")
	}
	// The call is a tool call to every client; its permission was b's.
	for _, f := range fs {
		if f.IsUpdate("permission_resolved") {
			testkit.Equal(t, f.Update(t).Update.ResolvedBy, "browser") // its clientInfo name
		}
	}
	testkit.Equal(t, acpclient.Count(fs, "permission_resolved"), 1)
	if acpclient.Count(fs, "tool_call") != 1 {
		t.Fatalf("tool_call updates: %d", acpclient.Count(fs, "tool_call"))
	}
}

// session/cancel reaches the agent (the turn ends cancelled); an agent
// that crashes mid-turn ends that turn with an error the clients see,
// keeps what it streamed before, and the next prompt starts it again.
func TestDaemonExternalAgentCancelAndCrash(t *testing.T) {
	home, _ := scriptedAgentHome(t, nil)
	d := startDaemon(t, home, nil)
	a := d.dialACP(t, "editor")
	sid := newAgentSession(t, a, t.TempDir(), "scripted")

	id := a.Prompt(sid, "say waiting\nwait")
	a.Until(func(f acpclient.Frame) bool { return f.IsUpdate("agent_message_chunk") })
	a.Send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": sid}})
	var res struct {
		StopReason string `json:"stopReason"`
	}
	a.WaitAnswer(id).Decode(t, &res)
	testkit.Equal(t, res.StopReason, "cancelled")

	fs, stop := promptTurn(t, a, sid, "say before the crash\ncrash")
	contains(t, acpclient.Chunks(t, fs), "before the crash")
	if !strings.HasPrefix(stop, "error: ") {
		t.Fatalf("a crashed turn answered %q", stop)
	}
	contains(t, stop, "exited")

	fs, stop = promptTurn(t, a, sid, "say back again\nrecall")
	testkit.Equal(t, stop, "end_turn")
	text := acpclient.Chunks(t, fs)
	contains(t, text, "back again")
	// The new program loaded the session the crashed one kept.
	contains(t, text, "seen: say waiting\nwait")

	// A mode change reaches the agent.
	a.WaitAnswer(a.Call("session/set_mode", map[string]any{"sessionId": sid, "modeId": "auto_edit"}))
	fs, _ = promptTurn(t, a, sid, "mode")
	contains(t, acpclient.Chunks(t, fs), "mode: auto_edit")

	// The log has the crash: a replay shows the same turns.
	b := d.dialACP(t, "browser")
	replayed, _ := b.Attach(map[string]any{"sessionId": sid, "historyPolicy": "full"})
	contains(t, acpclient.Chunks(t, replayed), "waitingbefore the crashback again")
}

// A session that goes cold stops its agent's program; its next prompt
// starts the agent again, which loads the session it had (what it replays
// while loading is not recorded twice). An agent that cannot load gets a
// fresh session and the recorded conversation as a takeover brief.
func TestDaemonExternalAgentColdSessionLoads(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"loads", nil, "seen: pid\nsay first"},
		{"takes over", map[string]string{"ACPAGENT_NOLOAD": "1"}, "[assistant]\npid "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, _ := scriptedAgentHome(t, tc.env)
			d := startDaemon(t, home, nil)
			a := d.dialACP(t, "editor")
			sid := newAgentSession(t, a, t.TempDir(), "scripted")
			fs, _ := promptTurn(t, a, sid, "pid\nsay first")
			first := acpclient.Chunks(t, fs)
			pid, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(first, "pid "), "first"))
			testkit.NoError(t, err)

			d.call(t, http.MethodPost, "/v1/sessions/"+sid+"/kill", nil, http.StatusAccepted, nil)
			testkit.Eventually(t, acpWait, "the agent's program stopped with its session", func() bool {
				return syscall.Kill(pid, 0) != nil
			})

			b := d.dialACP(t, "browser")
			b.WaitAnswer(b.Call("session/load", map[string]any{"sessionId": sid, "cwd": t.TempDir(), "mcpServers": []any{}}))
			fs, stop := promptTurn(t, b, sid, "recall")
			testkit.Equal(t, stop, "end_turn")
			contains(t, acpclient.Chunks(t, fs), tc.want)

			c := d.dialACP(t, "phone")
			replayed, _ := c.Attach(map[string]any{"sessionId": sid, "historyPolicy": "full"})
			all := acpclient.Chunks(t, replayed)
			if strings.Count(all, "first") != strings.Count(first+acpclient.Chunks(t, fs), "first") {
				t.Fatalf("the history holds a turn twice: %q", all)
			}
		})
	}
}

// A daemon SIGKILLed mid-turn takes its agent's program with it; the next
// daemon brings the session back with what was streamed, ends the cut
// turn, and the next prompt starts the agent again on the session it had.
func TestDaemonExternalAgentSIGKILLMidTurn(t *testing.T) {
	home, _ := scriptedAgentHome(t, nil)
	d := startDaemonBinary(t, home, nil)
	a := d.dialACP(t, "editor")
	sid := newAgentSession(t, a, t.TempDir(), "scripted")
	a.Prompt(sid, "pid\nsay streamed\nwait")
	var text strings.Builder
	a.Until(func(f acpclient.Frame) bool {
		if f.IsUpdate("agent_message_chunk") {
			text.WriteString(f.Update(t).Update.Content.Text)
		}
		return strings.Contains(text.String(), "streamed")
	})
	pid, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(text.String(), "pid "), "streamed"))
	testkit.NoError(t, err)
	// A prompt acknowledged (queued) behind the running turn.
	a.Prompt(sid, "say queued after")
	a.Until(func(f acpclient.Frame) bool { return f.Method == "hydra-acp/prompt_queue/added" })
	d.proc.Kill()
	testkit.Equal(t, d.proc.Wait(t, acpWait), -1)
	testkit.Eventually(t, acpWait, "the agent's program died with the daemon", func() bool { return syscall.Kill(pid, 0) != nil })

	d = startDaemon(t, home, nil)
	b := d.dialACP(t, "browser")
	replayed, _ := b.Attach(map[string]any{"sessionId": sid, "historyPolicy": "full"})
	contains(t, acpclient.Chunks(t, replayed), "streamed")
	// The cut turn ends as the session comes back, and the queued prompt
	// runs: in the replay, or live after it.
	all := replayed
	both := func() bool {
		return strings.Contains(acpclient.Chunks(t, all), "queued after") && acpclient.Count(all, "turn_complete") >= 2
	}
	if !both() {
		b.Until(func(f acpclient.Frame) bool { all = append(all, f); return both() })
	}
	fs, stop := promptTurn(t, b, sid, "say again\npid")
	testkit.Equal(t, stop, "end_turn")
	contains(t, acpclient.Chunks(t, fs), "again")
}

// What an agent said is the session's like any reply: in the REST
// history, the transcript and search, its usage in the session's totals;
// an export carries it, and an import of that bundle drops the agent
// args a bundle may not give.
func TestDaemonExternalAgentThroughTheLog(t *testing.T) {
	home, _ := scriptedAgentHome(t, nil)
	d := startDaemon(t, home, nil)
	a := d.dialACP(t, "editor")
	sid := newAgentSession(t, a, t.TempDir(), "scripted", "--secret-flag")
	_, stop := promptTurn(t, a, sid, "say the quick brown fox\ntool c1 read look around\ndone c1 found nothing\nusage 10 20")
	testkit.Equal(t, stop, "end_turn")

	// The agent reports the session's total cost; each run records its part.
	_, stop = promptTurn(t, a, sid, "cost 0.5")
	testkit.Equal(t, stop, "end_turn")
	_, stop = promptTurn(t, a, sid, "cost 0.75\nusage 1 2")
	testkit.Equal(t, stop, "end_turn")
	var entry struct {
		CurrentUsage struct {
			InputTokens, OutputTokens int64
			Cost                      float64
		}
	}
	d.call(t, http.MethodGet, "/v1/sessions/"+sid, nil, http.StatusOK, &entry)
	testkit.Equal(t, entry.CurrentUsage.InputTokens, int64(11))
	testkit.Equal(t, entry.CurrentUsage.OutputTokens, int64(22))
	testkit.Equal(t, entry.CurrentUsage.Cost, 0.75)

	md, _ := io.ReadAll(d.do(t, http.MethodGet, "/v1/sessions/"+sid+"/transcript?tools=1", nil).Body)
	contains(t, string(md), "the quick brown fox")
	contains(t, string(md), "look around")
	var found struct {
		Matches []struct{ SessionID string }
	}
	// The prompt and the agent's reply.
	d.call(t, http.MethodPost, "/v1/sessions/search", map[string]any{"q": "brown fox"}, http.StatusOK, &found)
	if len(found.Matches) != 2 || found.Matches[0].SessionID != sid || found.Matches[1].SessionID != sid {
		t.Fatalf("search: %+v", found)
	}
	history := strings.Join(updates(t, d, sid), "\n")
	contains(t, history, "the quick brown fox")
	contains(t, history, `"toolCallId":"c1"`)

	bundle, _ := io.ReadAll(d.do(t, http.MethodGet, "/v1/sessions/"+sid+"/export", nil).Body)
	contains(t, string(bundle), "--secret-flag")
	var imported struct {
		SessionID string
		Sanitized struct{ AgentArgs []string }
	}
	other := startDaemon(t, t.TempDir(), nil)
	other.call(t, http.MethodPost, "/v1/sessions/import", map[string]any{"bundle": json.RawMessage(bundle), "cwd": t.TempDir()}, http.StatusCreated, &imported)
	testkit.Equal(t, strings.Join(imported.Sanitized.AgentArgs, " "), "--secret-flag")
	exported, _ := io.ReadAll(other.do(t, http.MethodGet, "/v1/sessions/"+imported.SessionID+"/export", nil).Body)
	var again struct {
		Troupe struct {
			Created struct {
				Settings map[string]any
			}
		}
	}
	testkit.NoError(t, json.Unmarshal(exported, &again))
	if _, kept := again.Troupe.Created.Settings["agent_args"]; kept || strings.Contains(string(exported), "upstream_session_id") {
		t.Fatalf("the import kept the bundle's agent args or upstream session: %s", exported)
	}
}

// The session's MCP servers go to the agent's session/new: the client's,
// and the daemon's own (the stdin ring here) pointed at where it listens.
func TestDaemonExternalAgentGetsMCPServers(t *testing.T) {
	home, _ := scriptedAgentHome(t, nil)
	d := startDaemon(t, home, nil)
	a := d.dialACP(t, "editor")
	var res struct {
		SessionID string `json:"sessionId"`
	}
	a.WaitAnswer(a.Call("session/new", map[string]any{"cwd": t.TempDir(),
		"mcpServers": []any{map[string]any{"name": "docs", "command": "/bin/true", "args": []string{}, "env": []any{}}},
		"_meta":      map[string]any{"hydra-acp": map[string]any{"agentId": "scripted", "mcpStdin": true}}})).Decode(t, &res)
	fs, stop := promptTurn(t, a, res.SessionID, "mcp")
	testkit.Equal(t, stop, "end_turn")
	text := acpclient.Chunks(t, fs)
	contains(t, text, "docs=/bin/true")
	contains(t, text, "hydra-acp-stdin="+d.url+"/mcp/hydra-acp-stdin")
}
