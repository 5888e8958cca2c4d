package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/runtime/proc"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// A transformer registered over REST runs as a child of the daemon,
// reports its version through initialize and connects back with its own
// token; SIGKILLed, it is started again after growing delays (500 ms,
// 1 s, 2 s) with a new token, the old one refused; stop suppresses the
// restarts; the routes answer the protocol's status codes.
func TestDaemonTransformerSupervised(t *testing.T) {
	d := startDaemon(t, t.TempDir(), nil)
	var list struct {
		Transformers []pluginInfo `json:"transformers"`
	}
	d.call(t, "GET", "/v1/transformers", nil, http.StatusOK, &list)
	testkit.Equal(t, len(list.Transformers), 0)

	log := d.registerPlugin(t, "transformers", "tr", map[string]string{"PLUGIN_VERSION": "1.2.3"})
	in := d.waitRunning(t, "transformers", "tr", log, 0)
	if in.Version != "1.2.3" {
		t.Fatalf("%+v; log %v", in, logLines(t, log))
	}
	testkit.Equal(t, in.Enabled, true)
	for _, l := range logLines(t, log) {
		if l["probe"] == "transformer/initialize" && l["errorCode"] != float64(0) {
			t.Fatalf("a transformer's transformer/initialize was refused: %v", l)
		}
	}
	d.call(t, "GET", "/v1/transformers", nil, http.StatusOK, &list)
	testkit.Equal(t, len(list.Transformers), 1)

	wantError(t, d.do(t, "POST", "/v1/transformers", map[string]any{"name": "tr"}), http.StatusConflict)
	wantError(t, d.do(t, "POST", "/v1/transformers", map[string]any{"name": "bad name"}), http.StatusBadRequest)
	wantError(t, d.do(t, "POST", "/v1/transformers", map[string]any{"name": "x", "command": "node"}), http.StatusBadRequest)
	wantError(t, d.do(t, "POST", "/v1/transformers", map[string]any{"name": "x", "env": map[string]any{"A": 1}}), http.StatusBadRequest)
	wantError(t, d.do(t, "GET", "/v1/transformers/nope", nil), http.StatusNotFound)
	wantError(t, d.do(t, "POST", "/v1/transformers/nope/start", nil), http.StatusNotFound)
	wantError(t, d.do(t, "POST", "/v1/transformers/tr/start", nil), http.StatusConflict)

	// The per-process token works while its process lives, and dies with it.
	tok := processToken(t, in.PID)
	bearer := map[string]string{"Authorization": "Bearer " + tok}
	testkit.Equal(t, d.doWith(t, "GET", "/v1/sessions", nil, bearer).StatusCode, http.StatusOK)

	for i, least := range []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second} {
		killed := time.Now()
		testkit.NoError(t, syscall.Kill(in.PID, syscall.SIGKILL))
		next := d.waitRunning(t, "transformers", "tr", log, in.PID)
		if gap := time.Since(killed); gap < least {
			t.Fatalf("restart %d came %s after the kill, before its backoff of %s", i+1, gap, least)
		}
		testkit.Equal(t, next.Restarts, i+1)
		if i == 0 {
			testkit.Equal(t, d.doWith(t, "GET", "/v1/sessions", nil, bearer).StatusCode, http.StatusUnauthorized)
		}
		in = next
	}

	var stopped pluginInfo
	d.call(t, "POST", "/v1/transformers/tr/stop", nil, http.StatusOK, &stopped)
	testkit.Equal(t, stopped.Status, "stopped")
	testkit.Eventually(t, 10*time.Second, "the stopped program gone", func() bool { return !proc.Alive(in.PID) })
	wantError(t, d.do(t, "POST", "/v1/transformers/tr/stop", nil), http.StatusConflict)
	time.Sleep(time.Second) // longer than the first backoff: no restart comes
	testkit.Equal(t, d.plugin(t, "transformers", "tr").Status, "stopped")

	var started pluginInfo
	d.call(t, "POST", "/v1/transformers/tr/start", nil, http.StatusOK, &started)
	in = d.waitRunning(t, "transformers", "tr", log, 0)
	d.call(t, "POST", "/v1/transformers/tr/restart", nil, http.StatusOK, &started)
	restarted := d.waitRunning(t, "transformers", "tr", log, in.PID)

	d.call(t, "DELETE", "/v1/transformers/tr", nil, http.StatusNoContent, nil)
	wantError(t, d.do(t, "GET", "/v1/transformers/tr", nil), http.StatusNotFound)
	wantError(t, d.do(t, "DELETE", "/v1/transformers/tr", nil), http.StatusNotFound)
	testkit.Eventually(t, 10*time.Second, "the deleted program gone", func() bool { return !proc.Alive(restarted.PID) })
}

// An extension is supervised the same way, and the transformer-only
// methods answer it MethodNotFound. Registered over REST, it is in
// config.yml: the next daemon on the home runs it again.
func TestDaemonExtensionRefusedTransformerMethods(t *testing.T) {
	home := t.TempDir()
	first := startDaemon(t, home, nil)
	firstLog := first.registerPlugin(t, "extensions", "ext", map[string]string{"PLUGIN_VERSION": "0.4.0"})
	first.waitRunning(t, "extensions", "ext", firstLog, 0)
	first.proc.Signal(syscall.SIGTERM)
	testkit.Equal(t, first.proc.Wait(t, 30*time.Second), 0)

	d := startDaemon(t, home, nil)
	in := d.waitRunning(t, "extensions", "ext", firstLog, 0)
	testkit.Equal(t, in.Version, "0.4.0")
	d.call(t, "DELETE", "/v1/extensions/ext", nil, http.StatusNoContent, nil)
	log := d.registerPlugin(t, "extensions", "ext", map[string]string{"PLUGIN_VERSION": "0.4.1"})
	in = d.waitRunning(t, "extensions", "ext", log, 0)
	testkit.Equal(t, in.Version, "0.4.1")
	var code any
	for _, l := range logLines(t, log) {
		if l["probe"] == "transformer/initialize" {
			code = l["errorCode"]
		}
	}
	testkit.Equal(t, code, any(float64(-32601)))

	// A client is refused them too.
	c := d.dialACP(t, "editor")
	for _, m := range []string{"hydra-acp/transformer/initialize", "hydra-acp/message/emit", "hydra-acp/connection/keep_alive", "hydra-acp/transformer/attach"} {
		f := c.WaitAnswer(c.Call(m, map[string]any{}))
		if f.Error == nil || f.Error.Code != -32601 {
			t.Fatalf("%s from a client: %s", m, f.Raw)
		}
	}
}

// An extension's MCP tool, registered with hydra-acp/mcp_tools/register,
// reaches a new session's agent through /mcp/<name> with the session's
// capability token; the call is forwarded with the calling session's id.
func TestDaemonExtensionMCPTool(t *testing.T) {
	script := llmserver.Script{Model: "tiny", Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.ToolCall("c1", "ext__echo", `{"text":"hi"}`)),
		llmserver.Steps(llmserver.Text("done")),
	}}
	srv := llmserver.New(t, script)
	d := startDaemon(t, t.TempDir(), []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="},
		"--provider", "openai", "--model", "tiny", "--approval-mode", "yolo")
	log := d.registerPlugin(t, "extensions", "ext", map[string]string{"PLUGIN_TOOLS": "1"})
	testkit.Eventually(t, 30*time.Second, "the tool registered", func() bool {
		for _, l := range logLines(t, log) {
			if l["probe"] == "mcp_tools/register" {
				return true
			}
		}
		return false
	})
	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(t.TempDir())
	id := c.Prompt(sid, "call it")
	frames := c.Until(func(f acpclient.Frame) bool { return f.Answers(id) })
	testkit.Equal(t, stopReasonOf(t, frames[len(frames)-1]), "end_turn")
	reqs := srv.ChatRequests()
	testkit.Equal(t, len(reqs), 2)
	if want := "echo: hi from " + sid; !strings.Contains(string(reqs[1].Body), want) {
		t.Fatalf("the model's second request lacks %q: %s", want, reqs[1].Body)
	}
	// Without the session's capability token, /mcp/ext is refused.
	wantError(t, d.doWith(t, "POST", "/mcp/ext", `{}`, map[string]string{"Authorization": "Bearer " + d.token}), http.StatusUnauthorized)
}

// waitProbe waits for the plugin's probe line named what.
func waitProbe(t *testing.T, log, what string) {
	t.Helper()
	testkit.Eventually(t, 30*time.Second, what, func() bool {
		for _, l := range logLines(t, log) {
			if l["probe"] == what {
				return true
			}
		}
		return false
	})
}

// A `/hydra <extension> <verb> args` prompt goes through the queue like a
// prompt (queue notifications, prompt_received and turn_complete to the
// others) and the extension's reply is the agent's message; the model is
// never asked. Amending a command in flight tells the extension
// commands/cancel (amended) once, and the amended prompt runs at once.
func TestDaemonExtensionCommand(t *testing.T) {
	fine := llmserver.Steps(llmserver.Text("fine"))
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Default: &fine})
	d := startDaemon(t, t.TempDir(), []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="},
		"--provider", "openai", "--model", "tiny")
	log := d.registerPlugin(t, "extensions", "ext", map[string]string{"PLUGIN_COMMANDS": "1"})
	waitProbe(t, log, "commands/register")
	a := d.dialACP(t, "editor")
	sid, _ := a.NewSession(t.TempDir())
	b := d.dialACP(t, "watcher")
	b.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})

	id := a.Prompt(sid, "/hydra ext greet world")
	frames := a.Until(func(f acpclient.Frame) bool { return f.Answers(id) })
	testkit.Equal(t, stopReasonOf(t, frames[len(frames)-1]), "end_turn")
	var added string
	for _, f := range frames {
		if f.Method == "hydra-acp/prompt_queue/added" {
			var p struct{ MessageID string }
			testkit.NoError(t, json.Unmarshal(f.Params, &p))
			added = p.MessageID
		}
	}
	if added == "" {
		t.Fatal("no prompt_queue/added for the command")
	}
	testkit.Equal(t, acpclient.Chunks(t, frames), "hello world (message "+added+")")
	seen := b.Until(func(f acpclient.Frame) bool { return f.IsUpdate("turn_complete") })
	testkit.Equal(t, acpclient.Count(seen, "prompt_received"), 1)
	testkit.Equal(t, acpclient.Chunks(t, seen), "hello world (message "+added+")")
	testkit.Equal(t, len(srv.ChatRequests()), 0)

	slow := a.Prompt(sid, "/hydra ext slow")
	var target string
	testkit.Eventually(t, acpWait, "the slow command invoked", func() bool {
		for _, l := range logLines(t, log) {
			if l["method"] == "hydra-acp/commands/invoke" {
				p, _ := l["params"].(map[string]any)
				if p["verb"] == "slow" {
					target, _ = p["messageId"].(string)
				}
			}
		}
		return target != ""
	})
	amend := a.Call("hydra-acp/prompt/amend", map[string]any{"sessionId": sid, "targetMessageId": target,
		"prompt": []any{map[string]any{"type": "text", "text": "after"}}})
	var slowAnswer, amendAnswer *acpclient.Frame
	a.Until(func(f acpclient.Frame) bool {
		switch {
		case f.Answers(slow):
			slowAnswer = &f
		case f.Answers(amend):
			amendAnswer = &f
		}
		return slowAnswer != nil && amendAnswer != nil
	})
	testkit.Equal(t, stopReasonOf(t, *slowAnswer), "cancelled")
	if !strings.Contains(string(amendAnswer.Result), `"amended":true`) {
		t.Fatalf("amend answered %s", amendAnswer.Raw)
	}
	testkit.Eventually(t, acpWait, "the amended prompt ran on the model", func() bool { return len(srv.ChatRequests()) == 1 })
	cancels := 0
	testkit.Eventually(t, acpWait, "commands/cancel", func() bool {
		cancels = 0
		for _, l := range logLines(t, log) {
			if l["method"] == "hydra-acp/commands/cancel" {
				p, _ := l["params"].(map[string]any)
				if p["messageId"] == target {
					testkit.Equal(t, p["reason"], any("amended"))
					cancels++
				}
			}
		}
		return cancels > 0
	})
	time.Sleep(200 * time.Millisecond) // a second notification would be here by now
	testkit.Equal(t, cancels, 1)

	// A command cut by session/close is abandoned.
	a.Prompt(sid, "/hydra ext slow")
	var second string
	testkit.Eventually(t, acpWait, "the second slow command invoked", func() bool {
		for _, l := range logLines(t, log) {
			if p, _ := l["params"].(map[string]any); l["method"] == "hydra-acp/commands/invoke" && p["verb"] == "slow" && p["messageId"] != target {
				second, _ = p["messageId"].(string)
			}
		}
		return second != ""
	})
	a.WaitAnswer(a.Call("session/close", map[string]any{"sessionId": sid}))
	testkit.Eventually(t, acpWait, "commands/cancel abandoned", func() bool {
		for _, l := range logLines(t, log) {
			if p, _ := l["params"].(map[string]any); l["method"] == "hydra-acp/commands/cancel" && p["messageId"] == second {
				testkit.Equal(t, p["reason"], any("abandoned"))
				return true
			}
		}
		return false
	})
}

// Bad input on a process's connection gets JSON-RPC errors in the
// protocol's shape, and the connection goes on. The test connects with a
// running transformer's own token (read from its environment), so the
// daemon takes it for that transformer.
func TestDaemonProcessMethodsRefuseBadInput(t *testing.T) {
	d := startDaemon(t, t.TempDir(), nil)
	log := d.registerPlugin(t, "transformers", "tr", nil)
	in := d.waitRunning(t, "transformers", "tr", log, 0)
	c := d.dialProcess(t, in.PID, "probe")
	for _, tc := range []struct {
		method string
		params any
		code   int
	}{
		{"hydra-acp/transformer/attach", map[string]any{"sessionId": "s"}, -32603}, // before transformer/initialize
		{"hydra-acp/transformer/initialize", map[string]any{"intercepts": "request:session/prompt"}, -32602},
		{"hydra-acp/message/emit", map[string]any{"respondsTo": "nope"}, -32602},
		{"hydra-acp/message/emit", map[string]any{"sessionId": "s", "method": "session/prompt", "envelope": map[string]any{}, "route": "elsewhere"}, -32602},
		{"hydra-acp/message/emit", map[string]any{"method": "session/prompt", "envelope": map[string]any{}, "route": "chain"}, -32602},
		{"hydra-acp/connection/keep_alive", map[string]any{"token": "nope"}, -32602},
		{"hydra-acp/mcp_tools/register", map[string]any{"tools": []any{map[string]any{"name": "x"}}}, -32602},
		{"hydra-acp/commands/register", map[string]any{"commands": []any{map[string]any{"argsHint": "x"}}}, -32602},
		{"hydra-acp/child_session/spawn", map[string]any{}, -32602},
		{"hydra-acp/child_session/await", map[string]any{"childSessionId": "s", "until": "never"}, -32602},
		{"hydra-acp/session/request_permission", map[string]any{"sessionId": "nope"}, -32001},
	} {
		f := c.WaitAnswer(c.Call(tc.method, tc.params))
		if f.Error == nil || f.Error.Code != tc.code {
			t.Fatalf("%s %v: %s, want error %d", tc.method, tc.params, f.Raw, tc.code)
		}
	}
	f := c.WaitAnswer(c.Call("hydra-acp/transformer/initialize", map[string]any{"intercepts": []string{}}))
	if f.Error != nil {
		t.Fatalf("initialize after the refusals: %s", f.Raw)
	}
	f = c.WaitAnswer(c.Call("hydra-acp/transformer/attach", map[string]any{"sessionId": "nope"}))
	if f.Error == nil || f.Error.Code != -32001 {
		t.Fatalf("attach to an unknown session: %s", f.Raw)
	}
}

// A process name must be a path segment of its routes: "." and ".." (the
// spec's [A-Za-z0-9._-]+ allows them) are refused at registration with
// 400, and skipped with a warning when config.yml names them, the other
// entries run.
func TestDaemonPluginNamesOfDotsRefused(t *testing.T) {
	home := t.TempDir()
	yml := "extensions:\n  - name: '.'\n    enabled: false\n  - name: ok\n    enabled: false\n" +
		"transformers:\n  - name: '..'\n    enabled: false\n  - name: .hidden\n    enabled: false\n"
	testkit.NoError(t, os.WriteFile(filepath.Join(home, "config.yml"), []byte(yml), 0o600))
	d := startDaemon(t, home, nil)
	for _, kind := range []string{"extensions", "transformers"} {
		var list map[string][]pluginInfo
		d.call(t, "GET", "/v1/"+kind, nil, http.StatusOK, &list)
		want := map[string]string{"extensions": "ok", "transformers": ".hidden"}[kind]
		if len(list[kind]) != 1 || list[kind][0].Name != want {
			t.Fatalf("%s from config.yml: %+v, want only %s", kind, list[kind], want)
		}
		for _, name := range []string{".", "..", "...", "", "a/b", `a\b`, "a\x00b"} {
			msg := wantError(t, d.do(t, "POST", "/v1/"+kind, map[string]any{"name": name, "enabled": false}), http.StatusBadRequest)
			if !strings.Contains(msg, "name") {
				t.Fatalf("%s named %q: error %q does not say why", kind, name, msg)
			}
		}
		d.call(t, "GET", "/v1/"+kind, nil, http.StatusOK, &list)
		testkit.Equal(t, len(list[kind]), 1)
	}
	for _, skipped := range []string{`extension "." skipped`, `transformer ".." skipped`} {
		testkit.Eventually(t, 10*time.Second, "a warning that config.yml's "+skipped, func() bool {
			return strings.Contains(d.proc.Stderr(), skipped)
		})
	}
	b, err := os.ReadFile(filepath.Join(home, "config.yml"))
	testkit.NoError(t, err)
	testkit.Equal(t, string(b), yml) // the user's file is left as it was
}
