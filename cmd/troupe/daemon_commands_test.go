package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// commandsDaemon starts a daemon whose extension ext serves the plugin's
// slash commands (env, KEY=VALUE, added to its environment); it returns
// the daemon and the extension's log.
func commandsDaemon(t *testing.T, env ...string) (*daemonProc, string) {
	t.Helper()
	fine := llmserver.Steps(llmserver.Text("fine"))
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Default: &fine})
	d := startDaemon(t, t.TempDir(), []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="},
		"--provider", "openai", "--model", "tiny")
	penv := map[string]string{"PLUGIN_COMMANDS": "1"}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		penv[k] = v
	}
	log := d.registerPlugin(t, "extensions", "ext", penv)
	waitProbe(t, log, "commands/register")
	return d, log
}

// queuedAs sends text as a prompt and reads up to its
// prompt_queue/added; it returns the prompt's message id.
func queuedAs(t testing.TB, c *acpclient.Client, sid, text string) string {
	t.Helper()
	c.Prompt(sid, text)
	var id string
	c.Until(func(f acpclient.Frame) bool {
		if f.Method != "hydra-acp/prompt_queue/added" {
			return false
		}
		var p struct {
			MessageID string
			Prompt    []struct{ Text string }
		}
		testkit.NoError(t, json.Unmarshal(f.Params, &p))
		if len(p.Prompt) == 1 && p.Prompt[0].Text == text {
			id = p.MessageID
			return true
		}
		return false
	})
	return id
}

// pluginCalls are the params of every method call in a plugin's log.
func pluginCalls(t *testing.T, log, method string) []map[string]any {
	var out []map[string]any
	for _, l := range logLines(t, log) {
		if p, _ := l["params"].(map[string]any); l["method"] == method {
			out = append(out, p)
		}
	}
	return out
}

// waitCommandCall waits for method's call (commands/invoke or
// commands/cancel) naming messageID and returns its params.
func waitCommandCall(t *testing.T, log, method, messageID string) map[string]any {
	t.Helper()
	var got map[string]any
	testkit.Eventually(t, acpWait, method+" of "+messageID, func() bool {
		for _, p := range pluginCalls(t, log, method) {
			if p["messageId"] == messageID {
				got = p
				return true
			}
		}
		return false
	})
	return got
}

// A slash command cancelled or amended while queued leaves nothing behind:
// a later command of the same text is invoked as itself (its own message
// id), not as the cancelled one; an amended one runs with its new text
// under its message id. A command in flight cut by session/cancel is told
// "cancelled".
func TestDaemonExtensionCommandQueuedEdits(t *testing.T) {
	d, log := commandsDaemon(t)
	a := d.dialACP(t, "editor")
	sid, _ := a.NewSession(t.TempDir())

	slow := queuedAs(t, a, sid, "/hydra ext slow")
	waitCommandCall(t, log, "hydra-acp/commands/invoke", slow)
	cancelled := queuedAs(t, a, sid, "/hydra ext greet x")
	res := a.WaitAnswer(a.Call("hydra-acp/prompt/cancel", map[string]any{"sessionId": sid, "messageId": cancelled}))
	if !strings.Contains(string(res.Result), `"cancelled":true`) {
		t.Fatalf("prompt/cancel answered %s", res.Raw)
	}
	amended := queuedAs(t, a, sid, "/hydra ext greet a")
	res = a.WaitAnswer(a.Call("hydra-acp/prompt/amend", map[string]any{"sessionId": sid, "targetMessageId": amended,
		"prompt": []any{map[string]any{"type": "text", "text": "/hydra ext greet b"}}}))
	if !strings.Contains(string(res.Result), `"amended":true`) {
		t.Fatalf("prompt/amend answered %s", res.Raw)
	}
	again := queuedAs(t, a, sid, "/hydra ext greet x")

	a.Call("session/cancel", map[string]any{"sessionId": sid})
	testkit.Equal(t, waitCommandCall(t, log, "hydra-acp/commands/cancel", slow)["reason"], any("cancelled"))
	p := waitCommandCall(t, log, "hydra-acp/commands/invoke", again)
	testkit.Equal(t, p["args"], any("x"))
	var greets []string
	for _, p := range pluginCalls(t, log, "hydra-acp/commands/invoke") {
		if p["verb"] == "greet" {
			id, _ := p["messageId"].(string)
			greets = append(greets, p["args"].(string)+" "+id)
		}
	}
	testkit.Equal(t, strings.Join(greets, ", "), "b "+amended+", x "+again)
}

// A command in flight when its session is killed or deleted over REST is
// told "abandoned" (the session went away), not "cancelled".
func TestDaemonExtensionCommandKilledIsAbandoned(t *testing.T) {
	d, log := commandsDaemon(t)
	a := d.dialACP(t, "editor")
	for _, cut := range []struct{ method, path string }{{"POST", "/kill"}, {"DELETE", ""}} {
		sid, _ := a.NewSession(t.TempDir())
		slow := queuedAs(t, a, sid, "/hydra ext slow")
		waitCommandCall(t, log, "hydra-acp/commands/invoke", slow)
		res := d.do(t, cut.method, "/v1/sessions/"+sid+cut.path, nil)
		_ = res.Body.Close()
		if res.StatusCode != http.StatusAccepted && res.StatusCode != http.StatusNoContent {
			t.Fatalf("%s %s: status %d", cut.method, cut.path, res.StatusCode)
		}
		testkit.Equal(t, waitCommandCall(t, log, "hydra-acp/commands/cancel", slow)["reason"], any("abandoned"))
	}
}

// A command in flight when the daemon shuts down is told "abandoned"
// before the extension's connection closes.
func TestDaemonExtensionCommandShutdownIsAbandoned(t *testing.T) {
	d, log := commandsDaemon(t, "PLUGIN_DRAIN=1")
	a := d.dialACP(t, "editor")
	sid, _ := a.NewSession(t.TempDir())
	slow := queuedAs(t, a, sid, "/hydra ext slow")
	waitCommandCall(t, log, "hydra-acp/commands/invoke", slow)
	d.proc.Signal(syscall.SIGTERM)
	testkit.Equal(t, d.proc.Wait(t, 30*time.Second), 0)
	testkit.Equal(t, waitCommandCall(t, log, "hydra-acp/commands/cancel", slow)["reason"], any("abandoned"))
	testkit.Equal(t, len(pluginCalls(t, log, "hydra-acp/commands/cancel")), 1)
}
