package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
	"gopkg.in/yaml.v3"
)

// chainDaemon runs a daemon whose config.yml has one transformer, "tr",
// acting as mode on what it intercepts, in every session's default chain;
// the model answers "fine" to every prompt. It returns the daemon once the
// transformer is connected, the model's server and the transformer's log.
func chainDaemon(t *testing.T, mode, intercepts string, extra map[string]any, replies ...llmserver.Reply) (*daemonProc, *llmserver.Server, string) {
	t.Helper()
	home := t.TempDir()
	log := filepath.Join(t.TempDir(), "tr.log")
	cfg := map[string]any{
		"transformers": []any{map[string]any{"name": "tr", "command": []string{testkit.BuildPlugin(t)},
			"env": map[string]string{"PLUGIN_MODE": mode, "PLUGIN_INTERCEPTS": intercepts, "PLUGIN_LOG": log}}},
		"defaultTransformers": []string{"tr"},
	}
	for k, v := range extra {
		cfg[k] = v
	}
	b, err := yaml.Marshal(cfg)
	testkit.NoError(t, err)
	testkit.NoError(t, os.WriteFile(filepath.Join(home, "config.yml"), b, 0o600))
	fine := llmserver.Steps(llmserver.Text("fine"))
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: replies, Default: &fine})
	d := startDaemon(t, home, []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="},
		"--provider", "openai", "--model", "tiny", "--approval-mode", "auto_edit")
	d.waitRunning(t, "transformers", "tr", log, 0)
	return d, srv, log
}

// lastUserText is the last user message the model was sent.
func lastUserText(t *testing.T, srv *llmserver.Server) string {
	t.Helper()
	reqs := srv.ChatRequests()
	if len(reqs) == 0 {
		t.Fatal("the model was sent nothing")
	}
	msgs, _ := reqs[len(reqs)-1].JSON["messages"].([]any)
	text := ""
	for _, m := range msgs {
		if mm, _ := m.(map[string]any); mm["role"] == "user" {
			b, _ := json.Marshal(mm["content"])
			text = string(b)
		}
	}
	return text
}

func stopReasonOf(t *testing.T, f acpclient.Frame) string {
	t.Helper()
	var res struct {
		StopReason string `json:"stopReason"`
	}
	f.Decode(t, &res)
	return res.StopReason
}

// A transformer intercepting request:session/prompt rewrites the prompt
// the agent gets (continue with a payload).
func TestDaemonTransformerRewritesPrompt(t *testing.T) {
	d, srv, _ := chainDaemon(t, "rewrite", "request:session/prompt", nil)
	var cfg struct{ DefaultTransformers []string }
	d.call(t, "GET", "/v1/config", nil, 200, &cfg)
	testkit.Equal(t, strings.Join(cfg.DefaultTransformers, ","), "tr")
	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(t.TempDir())
	testkit.Equal(t, stopReasonOf(t, c.WaitAnswer(c.Prompt(sid, "hello"))), "end_turn")
	if got := lastUserText(t, srv); !strings.Contains(got, "rewritten: hello") {
		t.Fatalf("the model got %s, want the rewritten prompt", got)
	}
	// A session made over REST gets the default chain too.
	rid := d.create(t, t.TempDir())
	c.Attach(map[string]any{"sessionId": rid, "historyPolicy": "none"})
	testkit.Equal(t, stopReasonOf(t, c.WaitAnswer(c.Prompt(rid, "over rest"))), "end_turn")
	if got := lastUserText(t, srv); !strings.Contains(got, "rewritten: over rest") {
		t.Fatalf("the model got %s, want the rewritten prompt", got)
	}
	// The chain outlives the session's stop: closed and loaded again, it
	// still goes through the transformer.
	c.WaitAnswer(c.Call("session/close", map[string]any{"sessionId": sid}))
	c.WaitAnswer(c.Call("session/load", map[string]any{"sessionId": sid}))
	testkit.Equal(t, stopReasonOf(t, c.WaitAnswer(c.Prompt(sid, "reloaded"))), "end_turn")
	if got := lastUserText(t, srv); !strings.Contains(got, "rewritten: reloaded") {
		t.Fatalf("the model got %s after the reload", got)
	}
}

// stop short-circuits: the client gets the transformer's payload and the
// agent is never asked.
func TestDaemonTransformerStopsPrompt(t *testing.T) {
	d, srv, _ := chainDaemon(t, "stop", "request:session/prompt", nil)
	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(t.TempDir())
	testkit.Equal(t, stopReasonOf(t, c.WaitAnswer(c.Prompt(sid, "hello"))), "refusal")
	testkit.Equal(t, len(srv.ChatRequests()), 0)
}

// processing parks the prompt; the transformer emits a rewritten prompt
// with route chain, gets the agent's response when that turn ends, and
// discharges the parked prompt with it: the client's prompt answers once,
// with the agent's stop reason.
func TestDaemonTransformerHoldsAndEmits(t *testing.T) {
	d, srv, log := chainDaemon(t, "hold", "request:session/prompt,response:session/update", nil)
	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(t.TempDir())
	id := c.Prompt(sid, "hello")
	frames := c.Until(func(f acpclient.Frame) bool { return f.Answers(id) })
	testkit.Equal(t, stopReasonOf(t, frames[len(frames)-1]), "end_turn")
	if got := lastUserText(t, srv); !strings.Contains(got, "held: hello") {
		t.Fatalf("the model got %s, want the emitted prompt", got)
	}
	testkit.Equal(t, len(srv.ChatRequests()), 1)
	var emit, discharge map[string]any
	testkit.Eventually(t, acpWait, "the transformer's emit and discharge answered", func() bool {
		for _, l := range logLines(t, log) {
			switch l["probe"] {
			case "emit":
				emit = l
			case "discharge":
				discharge = l
			}
		}
		return emit != nil && discharge != nil
	})
	res, _ := emit["result"].(map[string]any)
	resp, _ := res["response"].(map[string]any)
	testkit.Equal(t, resp["stopReason"], any("end_turn"))
	dres, _ := discharge["result"].(map[string]any)
	testkit.Equal(t, dres["ok"], any(true))
	// The emitted turn's reply went through the response chain.
	testkit.Eventually(t, acpWait, "the reply observed as response:session/update", func() bool {
		text := ""
		for _, l := range logLines(t, log) {
			p, _ := l["params"].(map[string]any)
			if l["method"] == "hydra-acp/transformer/message" && p["phase"] == "response" && p["method"] == "session/update" {
				env, _ := p["envelope"].(map[string]any)
				u, _ := env["update"].(map[string]any)
				c, _ := u["content"].(map[string]any)
				t, _ := c["text"].(string)
				text += t
			}
		}
		return text == "fine"
	})
}

// A claim never discharged is abandoned after claimTimeout: every attached
// client is told, and the prompt goes on to the agent unchanged.
func TestDaemonTransformerAbandonedFailsOpen(t *testing.T) {
	d, srv, _ := chainDaemon(t, "abandon", "request:session/prompt", map[string]any{"claimTimeout": "1s"})
	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(t.TempDir())
	w := d.dialACP(t, "watcher")
	w.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})
	id := c.Prompt(sid, "hello")
	frames := c.Until(func(f acpclient.Frame) bool { return f.Answers(id) })
	testkit.Equal(t, stopReasonOf(t, frames[len(frames)-1]), "end_turn")
	abandoned := 0
	for _, f := range frames {
		if f.Method == "hydra-acp/transformer/abandoned_request" {
			abandoned++
			if !strings.Contains(string(f.Params), `"transformerName":"tr"`) {
				t.Fatalf("abandoned_request %s", f.Params)
			}
		}
	}
	testkit.Equal(t, abandoned, 1)
	w.Until(func(f acpclient.Frame) bool { return f.Method == "hydra-acp/transformer/abandoned_request" })
	if got := lastUserText(t, srv); !strings.Contains(got, `"hello"`) && !strings.Contains(got, `"text":"hello"`) {
		t.Fatalf("the model got %s, want the prompt unchanged", got)
	}
}

// A transformer SIGKILLed is passed over while it is down (fail-open) and
// back in the session's chain once restarted.
func TestDaemonTransformerKilledFailsOpen(t *testing.T) {
	d, srv, log := chainDaemon(t, "rewrite", "request:session/prompt", nil)
	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(t.TempDir())
	in := d.plugin(t, "transformers", "tr")
	testkit.NoError(t, syscall.Kill(in.PID, syscall.SIGKILL))
	testkit.Equal(t, stopReasonOf(t, c.WaitAnswer(c.Prompt(sid, "while down"))), "end_turn")
	if got := lastUserText(t, srv); strings.Contains(got, "rewritten:") {
		t.Fatalf("the model got %s while the transformer was down", got)
	}
	d.waitRunning(t, "transformers", "tr", log, in.PID)
	testkit.Equal(t, stopReasonOf(t, c.WaitAnswer(c.Prompt(sid, "back"))), "end_turn")
	if got := lastUserText(t, srv); !strings.Contains(got, "rewritten: back") {
		t.Fatalf("the model got %s after the restart", got)
	}
}

// A transformer intercepting request:session/request_permission that
// stops it denies the call (the default auto-deny): no client is asked,
// the tool does not run, and the transformer hears permission.replied
// and tool.completed.
func TestDaemonTransformerStopsPermission(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	d, _, log := chainDaemon(t, "stop", "request:session/request_permission,lifecycle:permission.replied,lifecycle:tool.completed", nil,
		llmserver.Steps(llmserver.ToolCall("c1", "bash", `{"command":"touch `+marker+`"}`)))
	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(dir)
	id := c.Prompt(sid, "run it")
	frames := c.Until(func(f acpclient.Frame) bool { return f.Answers(id) })
	testkit.Equal(t, stopReasonOf(t, frames[len(frames)-1]), "end_turn")
	for _, f := range frames {
		if f.Method == "session/request_permission" {
			t.Fatalf("the client was asked: %s", f.Raw)
		}
	}
	testkit.Equal(t, acpclient.Count(frames, "permission_resolved"), 1)
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("the denied command ran: %v", err)
	}
	events := map[string]map[string]any{}
	testkit.Eventually(t, acpWait, "permission.replied and tool.completed", func() bool {
		for _, l := range logLines(t, log) {
			if l["method"] == "hydra-acp/transformer/session_event" {
				p, _ := l["params"].(map[string]any)
				ev, _ := p["event"].(string)
				events[ev], _ = p["payload"].(map[string]any)
			}
		}
		return events["permission.replied"] != nil && events["tool.completed"] != nil
	})
	testkit.Equal(t, events["permission.replied"]["sourceWasTransformer"], any(true))
	testkit.Equal(t, events["permission.replied"]["outcome"], any("denied"))
	testkit.Equal(t, events["tool.completed"]["toolCallId"], any("c1"))
}

// A permission request the chain lets through (continue) is put to the
// clients then, and their answer decides.
func TestDaemonTransformerPassesPermission(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	d, _, _ := chainDaemon(t, "", "request:session/request_permission", nil,
		llmserver.Steps(llmserver.ToolCall("c1", "bash", `{"command":"touch `+marker+`"}`)))
	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(dir)
	id := c.Prompt(sid, "run it")
	asked := c.Until(func(f acpclient.Frame) bool { return f.Method == "session/request_permission" })
	c.AnswerPermission(asked[len(asked)-1].ID, "allow_once")
	frames := c.Until(func(f acpclient.Frame) bool { return f.Answers(id) })
	testkit.Equal(t, stopReasonOf(t, frames[len(frames)-1]), "end_turn")
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the allowed command did not run: %v", err)
	}
}

// A transformer spawns a child of a session (the parent's cwd, titled),
// awaits its turn while prompting it, and closes it (cold, kept).
func TestDaemonTransformerChildSession(t *testing.T) {
	d, _, log := chainDaemon(t, "child", "lifecycle:session.opened", nil)
	c := d.dialACP(t, "editor")
	cwd := t.TempDir()
	c.NewSession(cwd)
	var child map[string]any
	testkit.Eventually(t, acpWait, "the child probe", func() bool {
		for _, l := range logLines(t, log) {
			if l["probe"] == "child" {
				child = l
			}
		}
		return child != nil
	})
	cid, _ := child["childSessionId"].(string)
	if cid == "" {
		t.Fatalf("spawn failed: %v", child)
	}
	entries, _ := child["await"].(map[string]any)["entries"].([]any)
	var text strings.Builder
	last := ""
	for _, e := range entries {
		u, _ := e.(map[string]any)["params"].(map[string]any)["update"].(map[string]any)
		last, _ = u["sessionUpdate"].(string)
		if last == "agent_message_chunk" {
			text.WriteString(u["content"].(map[string]any)["text"].(string))
		}
	}
	testkit.Equal(t, text.String(), "fine")
	testkit.Equal(t, last, "turn_complete")
	testkit.Equal(t, child["close"].(map[string]any)["ok"], any(true))
	var e sessionEntry
	d.call(t, "GET", "/v1/sessions/"+cid, nil, 200, &e)
	testkit.Equal(t, e.Status, "cold")
	testkit.Equal(t, e.Cwd, cwd)
	testkit.Equal(t, e.Title, "worker")
}

// A transformer's own hydra-acp/session/request_permission goes to the
// session's attached clients; the first answer is its result.
func TestDaemonTransformerAsksPermission(t *testing.T) {
	d, _, log := chainDaemon(t, "askperm", "lifecycle:session.opened", nil)
	c := d.dialACP(t, "editor")
	c.NewSession(t.TempDir())
	asked := c.Until(func(f acpclient.Frame) bool { return f.Method == "session/request_permission" })
	if !strings.Contains(asked[len(asked)-1].Raw, `"deploy-1"`) {
		t.Fatalf("asked %s", asked[len(asked)-1].Raw)
	}
	c.AnswerPermission(asked[len(asked)-1].ID, "allow_once")
	var probe map[string]any
	testkit.Eventually(t, acpWait, "the permission probe", func() bool {
		for _, l := range logLines(t, log) {
			if l["probe"] == "permission" {
				probe = l
			}
		}
		return probe != nil
	})
	testkit.Equal(t, probe["noSession"], any(float64(-32602)))
	testkit.Equal(t, probe["unknown"], any(float64(-32001)))
	out, _ := probe["result"].(map[string]any)["outcome"].(map[string]any)
	testkit.Equal(t, out["optionId"], any("allow_once"))
}

// sessionEvents are the lifecycle events a plugin's log shows, in order.
func sessionEvents(t *testing.T, log string) []map[string]any {
	var out []map[string]any
	for _, l := range logLines(t, log) {
		if l["method"] == "hydra-acp/transformer/session_event" {
			p, _ := l["params"].(map[string]any)
			out = append(out, p)
		}
	}
	return out
}

// Lifecycle events: file.edited once per path, session.idle after the
// quiet period, session.closed when the session closes.
func TestDaemonTransformerLifecycle(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.txt")
	write := llmserver.Steps(llmserver.ToolCall("c1", "write", `{"path":"`+file+`","content":"x"}`))
	again := llmserver.Steps(llmserver.ToolCall("c2", "write", `{"path":"`+file+`","content":"y"}`))
	d, _, log := chainDaemon(t, "", "lifecycle:file.edited,lifecycle:session.idle,lifecycle:session.closed",
		map[string]any{"idleEventTimeout": "300ms"}, write, llmserver.Steps(llmserver.Text("ok")), again)
	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(dir)
	testkit.Equal(t, stopReasonOf(t, c.WaitAnswer(c.Prompt(sid, "write it"))), "end_turn")
	testkit.Equal(t, stopReasonOf(t, c.WaitAnswer(c.Prompt(sid, "again"))), "end_turn")
	testkit.Eventually(t, acpWait, "session.idle", func() bool {
		for _, e := range sessionEvents(t, log) {
			if e["event"] == "session.idle" {
				return true
			}
		}
		return false
	})
	c.WaitAnswer(c.Call("session/close", map[string]any{"sessionId": sid}))
	testkit.Eventually(t, acpWait, "session.closed", func() bool {
		evs := sessionEvents(t, log)
		return len(evs) > 0 && evs[len(evs)-1]["event"] == "session.closed"
	})
	edited := 0
	for _, e := range sessionEvents(t, log) {
		if e["event"] == "file.edited" {
			edited++
			testkit.Equal(t, e["payload"].(map[string]any)["path"], any(file))
		}
	}
	testkit.Equal(t, edited, 1)
}

// Prompts sent back to back go through the chain one at a time: the
// agent gets them in the order they were sent.
func TestDaemonTransformerKeepsPromptOrder(t *testing.T) {
	d, srv, _ := chainDaemon(t, "rewrite", "request:session/prompt", nil)
	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(t.TempDir())
	ids := []int{c.Prompt(sid, "one"), c.Prompt(sid, "two"), c.Prompt(sid, "three")}
	answered := 0
	c.Until(func(f acpclient.Frame) bool {
		for _, id := range ids {
			if f.Answers(id) {
				answered++
			}
		}
		return answered == len(ids)
	})
	reqs := srv.ChatRequests()
	testkit.Equal(t, len(reqs), 3)
	for i, want := range []string{"rewritten: one", "rewritten: two", "rewritten: three"} {
		if !strings.Contains(string(reqs[i].Body), want) {
			t.Fatalf("chat request %d lacks %q: %s", i, want, reqs[i].Body)
		}
	}
}

// A transformer attaches itself to a session with no chain (from its own
// slash command) and intercepts its prompts from then on.
func TestDaemonTransformerAttachesItself(t *testing.T) {
	home := t.TempDir()
	log := filepath.Join(t.TempDir(), "tr.log")
	b, err := yaml.Marshal(map[string]any{"transformers": []any{map[string]any{"name": "tr",
		"command": []string{testkit.BuildPlugin(t)}, "env": map[string]string{"PLUGIN_MODE": "rewrite",
			"PLUGIN_INTERCEPTS": "request:session/prompt", "PLUGIN_COMMANDS": "1", "PLUGIN_LOG": log}}}})
	testkit.NoError(t, err)
	testkit.NoError(t, os.WriteFile(filepath.Join(home, "config.yml"), b, 0o600))
	fine := llmserver.Steps(llmserver.Text("fine"))
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Default: &fine})
	d := startDaemon(t, home, []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}, "--provider", "openai", "--model", "tiny")
	d.waitRunning(t, "transformers", "tr", log, 0)
	waitProbe(t, log, "commands/register")
	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(t.TempDir()) // no defaultTransformers: no chain
	testkit.Equal(t, stopReasonOf(t, c.WaitAnswer(c.Prompt(sid, "before"))), "end_turn")
	if got := lastUserText(t, srv); strings.Contains(got, "rewritten:") {
		t.Fatalf("rewritten before the attach: %s", got)
	}
	id := c.Prompt(sid, "/hydra tr attach")
	frames := c.Until(func(f acpclient.Frame) bool { return f.Answers(id) })
	if got := acpclient.Chunks(t, frames); got != `attached {"ok":true}` {
		t.Fatalf("the attach command answered %q", got)
	}
	testkit.Equal(t, stopReasonOf(t, c.WaitAnswer(c.Prompt(sid, "after"))), "end_turn")
	if got := lastUserText(t, srv); !strings.Contains(got, "rewritten: after") {
		t.Fatalf("not rewritten after the attach: %s", got)
	}
}

// keep_alive holds a claim past the claim timeout: nothing is abandoned,
// and the discharge answers the prompt.
func TestDaemonTransformerKeepAlive(t *testing.T) {
	d, srv, log := chainDaemon(t, "keepalive", "request:session/prompt", map[string]any{"claimTimeout": "1s"})
	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(t.TempDir())
	id := c.Prompt(sid, "hold it")
	frames := c.Until(func(f acpclient.Frame) bool { return f.Answers(id) })
	if got := string(frames[len(frames)-1].Result); !strings.Contains(got, `"heldFor":"1.5s"`) {
		t.Fatalf("the prompt answered %s, want the discharge", got)
	}
	for _, f := range frames {
		if f.Method == "hydra-acp/transformer/abandoned_request" {
			t.Fatalf("abandoned while kept alive: %s", f.Raw)
		}
	}
	testkit.Equal(t, len(srv.ChatRequests()), 0)
	kept := 0
	for _, l := range logLines(t, log) {
		if l["probe"] == "keep_alive" {
			if r, _ := l["result"].(map[string]any); r["ok"] == true {
				kept++
			}
		}
	}
	testkit.Equal(t, kept, 5)
}

// A transformer stopping request:session/cancel suppresses it: the run
// goes on to its end.
func TestDaemonTransformerSuppressesCancel(t *testing.T) {
	slow := llmserver.Steps(llmserver.Text("one "), llmserver.Delay(800*time.Millisecond), llmserver.Text("two"))
	d, _, log := chainDaemon(t, "stop", "request:session/cancel", nil, slow)
	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(t.TempDir())
	id := c.Prompt(sid, "count")
	c.Until(func(f acpclient.Frame) bool { return f.IsUpdate("agent_message_chunk") })
	c.Send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": sid}})
	frames := c.Until(func(f acpclient.Frame) bool { return f.Answers(id) })
	testkit.Equal(t, stopReasonOf(t, frames[len(frames)-1]), "end_turn")
	seen := false
	for _, l := range logLines(t, log) {
		if p, _ := l["params"].(map[string]any); l["method"] == "hydra-acp/transformer/message" && p["method"] == "session/cancel" {
			seen = true
		}
	}
	testkit.Equal(t, seen, true)
}

// session/set_mode goes through the chain too: stopped, the mode stays.
func TestDaemonTransformerStopsSetMode(t *testing.T) {
	d, _, log := chainDaemon(t, "stop", "request:session/set_mode", nil)
	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(t.TempDir())
	id := c.Call("session/set_mode", map[string]any{"sessionId": sid, "modeId": "yolo"})
	frames := c.Until(func(f acpclient.Frame) bool { return f.Answers(id) })
	if f := frames[len(frames)-1]; f.Error != nil {
		t.Fatalf("set_mode: %s", f.Raw)
	}
	testkit.Equal(t, acpclient.Count(frames, "current_mode_update"), 0)
	var res struct {
		Modes struct {
			CurrentModeID string `json:"currentModeId"`
		} `json:"modes"`
	}
	o := d.dialACP(t, "other")
	o.WaitAnswer(o.Call("session/attach", map[string]any{"sessionId": sid, "historyPolicy": "none"})).Decode(t, &res)
	testkit.Equal(t, res.Modes.CurrentModeID, "auto_edit")
	seen := false
	for _, l := range logLines(t, log) {
		if p, _ := l["params"].(map[string]any); l["method"] == "hydra-acp/transformer/message" && p["method"] == "session/set_mode" {
			seen = true
		}
	}
	testkit.Equal(t, seen, true)
}
