package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
	"gopkg.in/yaml.v3"
)

// restartedDaemon is a daemon that can be killed with SIGKILL and started
// again on the same home, with the same environment and flags: the binary,
// then the daemon in the test's process.
type restartedDaemon struct {
	*daemonProc
	env  []string
	args []string
}

// kill9 kills the daemon and starts a new one on its home.
func (r *restartedDaemon) kill9(t *testing.T) {
	t.Helper()
	r.proc.Kill()
	testkit.Equal(t, r.proc.Wait(t, acpWait), -1)
	r.daemonProc = startDaemon(t, r.home, r.env, r.args...) // in-process: kill9 it no more
}

// transformerHome writes a config.yml with transformer "tr" (the plugin
// program, env added to its log) in no session's default chain.
func transformerHome(t *testing.T, env map[string]string) (home, log string) {
	t.Helper()
	home, log = t.TempDir(), filepath.Join(t.TempDir(), "tr.log")
	full := map[string]string{"PLUGIN_LOG": log}
	for k, v := range env {
		full[k] = v
	}
	b, err := yaml.Marshal(map[string]any{"transformers": []any{map[string]any{"name": "tr",
		"command": []string{testkit.BuildPlugin(t)}, "env": full}}})
	testkit.NoError(t, err)
	testkit.NoError(t, os.WriteFile(filepath.Join(home, "config.yml"), b, 0o600))
	return home, log
}

// waitProbeOf waits for the probe line what of the run of pid.
func waitProbeOf(t *testing.T, log string, pid int, what string) {
	t.Helper()
	testkit.Eventually(t, 30*time.Second, what+" of pid "+strconv.Itoa(pid), func() bool {
		seen := false
		for _, l := range logLines(t, log) {
			seen = seen || l["pid"] == float64(pid)
			if seen && l["probe"] == what {
				return true
			}
		}
		return false
	})
}

// rewrittenTo prompts sid, waits for the end of its turn, and returns the
// last user message the model got.
func rewrittenTo(t *testing.T, c *acpclient.Client, srv *llmserver.Server, sid, text string) string {
	t.Helper()
	testkit.Equal(t, stopReasonOf(t, c.WaitAnswer(c.Prompt(sid, text))), "end_turn")
	return lastUserText(t, srv)
}

// startFineDaemon starts a daemon on home against a model answering "fine"
// and waits for its transformer tr (logging to log) to register its
// commands.
func startFineDaemon(t *testing.T, home, log string) (*llmserver.Server, *restartedDaemon, pluginInfo) {
	t.Helper()
	fine := llmserver.Steps(llmserver.Text("fine"))
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Default: &fine})
	d := &restartedDaemon{env: []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="},
		args: []string{"--provider", "openai", "--model", "tiny"}}
	d.daemonProc = startDaemonBinary(t, home, d.env, d.args...) // kill9 needs its own process
	first := d.waitRunning(t, "transformers", "tr", log, 0)
	waitProbeOf(t, log, first.PID, "commands/register")
	return srv, d, first
}

// newChainedSession creates a session whose chain is tr.
func newChainedSession(t *testing.T, c *acpclient.Client) string {
	t.Helper()
	var created struct {
		SessionID string `json:"sessionId"`
	}
	c.WaitAnswer(c.Call("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{},
		"_meta": map[string]any{"hydra-acp": map[string]any{"transformers": []string{"tr"}}}})).Decode(t, &created)
	return created.SessionID
}

// A session's transformer chain is in its log: created with a rewriting
// transformer, or joined by one with transformer/attach, a session's
// prompts are still rewritten after the daemon is killed and started
// again (the transformer restarted by the new daemon, reconnected); a
// session without a chain is still not.
func TestDaemonTransformerChainSurvivesRestart(t *testing.T) {
	home, log := transformerHome(t, map[string]string{"PLUGIN_MODE": "rewrite",
		"PLUGIN_INTERCEPTS": "request:session/prompt", "PLUGIN_COMMANDS": "1"})
	srv, d, first := startFineDaemon(t, home, log)
	c := d.dialACP(t, "editor")
	chained := newChainedSession(t, c)
	attached, _ := c.NewSession(t.TempDir())
	plain, _ := c.NewSession(t.TempDir())
	id := c.Prompt(attached, "/hydra tr attach")
	if got := acpclient.Chunks(t, c.Until(func(f acpclient.Frame) bool { return f.Answers(id) })); got != `attached {"ok":true}` {
		t.Fatalf("the attach command answered %q", got)
	}
	for _, sid := range []string{chained, attached} {
		if got := rewrittenTo(t, c, srv, sid, "before "+sid); !strings.Contains(got, "rewritten: before") {
			t.Fatalf("%s before the restart: the model got %s", sid, got)
		}
	}

	d.kill9(t)
	d.waitRunning(t, "transformers", "tr", log, first.PID)
	c = d.dialACP(t, "editor")
	for _, sid := range []string{chained, attached, plain} {
		c.WaitAnswer(c.Call("session/load", map[string]any{"sessionId": sid}))
	}
	for _, sid := range []string{chained, attached} {
		if got := rewrittenTo(t, c, srv, sid, "after "+sid); !strings.Contains(got, "rewritten: after "+sid) {
			t.Fatalf("%s after the restart: the model got %s, want the rewritten prompt", sid, got)
		}
	}
	if got := rewrittenTo(t, c, srv, plain, "plain"); strings.Contains(got, "rewritten:") {
		t.Fatalf("a session without a chain was rewritten after the restart: %s", got)
	}
}

// childParent is what REST and session/list say of a session's parent.
func childParent(t *testing.T, d *daemonProc, c *acpclient.Client, sid string) (rest, list string) {
	t.Helper()
	var e struct {
		ParentSessionID     string `json:"parentSessionId"`
		ForkedFromSessionID string `json:"forkedFromSessionId"`
	}
	d.call(t, "GET", "/v1/sessions/"+sid, nil, 200, &e)
	testkit.Equal(t, e.ForkedFromSessionID, "") // a child is no fork
	var res struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
			Meta      struct {
				Hydra struct {
					ParentSessionID string `json:"parentSessionId"`
				} `json:"hydra-acp"`
			} `json:"_meta"`
		} `json:"sessions"`
	}
	c.WaitAnswer(c.Call("session/list", map[string]any{})).Decode(t, &res)
	for _, s := range res.Sessions {
		if s.SessionID == sid {
			list = s.Meta.Hydra.ParentSessionID
		}
	}
	return e.ParentSessionID, list
}

// A child a transformer spawned keeps its parent across a SIGKILL of the
// daemon (REST entry, session/list), and the transformer can still prompt,
// await and close it.
func TestDaemonTransformerChildSurvivesRestart(t *testing.T) {
	home, log := transformerHome(t, map[string]string{"PLUGIN_MODE": "child",
		"PLUGIN_INTERCEPTS": "lifecycle:session.opened", "PLUGIN_COMMANDS": "1"})
	_, d, first := startFineDaemon(t, home, log)
	c := d.dialACP(t, "editor")
	parent := newChainedSession(t, c)
	waitProbeOf(t, log, first.PID, "child")
	var cid string
	for _, l := range logLines(t, log) {
		if l["probe"] == "child" {
			cid, _ = l["childSessionId"].(string)
		}
	}
	if cid == "" {
		t.Fatal("the transformer spawned no child")
	}
	rest, list := childParent(t, d.daemonProc, c, cid)
	testkit.Equal(t, rest, parent)
	testkit.Equal(t, list, parent)

	d.kill9(t)
	d.waitRunning(t, "transformers", "tr", log, first.PID)
	c = d.dialACP(t, "editor")
	rest, list = childParent(t, d.daemonProc, c, cid)
	testkit.Equal(t, rest, parent)
	testkit.Equal(t, list, parent)
	_, parentList := childParent(t, d.daemonProc, c, parent)
	testkit.Equal(t, parentList, "")

	// An attach answer names the parent too.
	var att struct {
		Meta struct {
			Hydra struct {
				ParentSessionID string `json:"parentSessionId"`
			} `json:"hydra-acp"`
		} `json:"_meta"`
	}
	c.WaitAnswer(c.Call("session/attach", map[string]any{"sessionId": cid, "historyPolicy": "none",
		"_meta": map[string]any{"hydra-acp": map[string]any{"readonly": true}}})).Decode(t, &att)
	testkit.Equal(t, att.Meta.Hydra.ParentSessionID, parent)
	c.WaitAnswer(c.Call("session/detach", map[string]any{"sessionId": cid}))

	// The transformer works the child again through its command.
	c.WaitAnswer(c.Call("session/load", map[string]any{"sessionId": parent}))
	id := c.Prompt(parent, "/hydra tr child "+cid)
	var out struct {
		Await struct {
			Entries []struct {
				Params struct {
					Update struct {
						SessionUpdate string `json:"sessionUpdate"`
						Content       struct{ Text string }
					} `json:"update"`
				} `json:"params"`
			} `json:"entries"`
		} `json:"await"`
		AwaitError any `json:"awaitError"`
		Close      struct {
			OK bool `json:"ok"`
		} `json:"close"`
		CloseError any `json:"closeError"`
	}
	answer := acpclient.Chunks(t, c.Until(func(f acpclient.Frame) bool { return f.Answers(id) }))
	testkit.NoError(t, json.Unmarshal([]byte(answer), &out))
	if out.AwaitError != nil || out.CloseError != nil || !out.Close.OK {
		t.Fatalf("the child's await or close failed after the restart: %s", answer)
	}
	var text strings.Builder
	last := ""
	for _, e := range out.Await.Entries {
		last = e.Params.Update.SessionUpdate
		if last == "agent_message_chunk" {
			text.WriteString(e.Params.Update.Content.Text)
		}
	}
	testkit.Equal(t, text.String(), "fine")
	testkit.Equal(t, last, "turn_complete")
	var e sessionEntry
	d.call(t, "GET", "/v1/sessions/"+cid, nil, 200, &e)
	testkit.Equal(t, e.Status, "cold")
}

// An extension's MCP tool is called by a session's agent before and after
// a SIGKILL of the daemon: the session's recorded entry, whose token died
// with the first daemon, is given the new daemon's address and a token of
// its run once the restarted extension registered again.
func TestDaemonExtensionMCPToolSurvivesRestart(t *testing.T) {
	call := func(text string) llmserver.Reply {
		return llmserver.Steps(llmserver.ToolCall("c-"+text, "ext__echo", `{"text":"`+text+`"}`))
	}
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: []llmserver.Reply{
		call("before"), llmserver.Steps(llmserver.Text("done")),
		call("after"), llmserver.Steps(llmserver.Text("done")),
	}})
	d := &restartedDaemon{env: []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="},
		args: []string{"--provider", "openai", "--model", "tiny", "--approval-mode", "yolo"}}
	d.daemonProc = startDaemonBinary(t, t.TempDir(), d.env, d.args...) // kill9 needs its own process
	log := d.registerPlugin(t, "extensions", "ext", map[string]string{"PLUGIN_TOOLS": "1"})
	first := d.waitRunning(t, "extensions", "ext", log, 0)
	waitProbeOf(t, log, first.PID, "mcp_tools/register")

	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(t.TempDir())
	testkit.Equal(t, stopReasonOf(t, c.WaitAnswer(c.Prompt(sid, "call it"))), "end_turn")
	reqs := srv.ChatRequests()
	testkit.Equal(t, len(reqs), 2)
	if want := "echo: before from " + sid; !strings.Contains(string(reqs[1].Body), want) {
		t.Fatalf("the model's second request lacks %q: %s", want, reqs[1].Body)
	}

	d.kill9(t)
	again := d.waitRunning(t, "extensions", "ext", log, first.PID)
	waitProbeOf(t, log, again.PID, "mcp_tools/register")
	c = d.dialACP(t, "editor")
	c.WaitAnswer(c.Call("session/load", map[string]any{"sessionId": sid}))
	testkit.Equal(t, stopReasonOf(t, c.WaitAnswer(c.Prompt(sid, "call it again"))), "end_turn")
	reqs = srv.ChatRequests()
	testkit.Equal(t, len(reqs), 4)
	if want := "echo: after from " + sid; !strings.Contains(string(reqs[3].Body), want) {
		t.Fatalf("the model's request after the restart lacks %q: %s", want, reqs[3].Body)
	}
}
