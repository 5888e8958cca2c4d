//go:build agentcompat

package agentcompat

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

var update = flag.Bool("update", false, "write each agent's recordings into testdata/<agent>/")

// Row results.
const (
	OK      = "ok"      // it did what the row asks
	Differs = "differs" // it worked, but not the way the row expects
	Fails   = "fails"   // it did not work
)

// wait bounds each read of a client: a Node agent's start, and opencode's
// first fetch of its provider package, take seconds.
const wait = 120 * time.Second

// realAgent is one npm agent the matrix drives.
type realAgent struct {
	id      string
	env     string // the variable naming its program
	args    []string
	setHome func(t testing.TB, home, llmURL string) map[string]string
}

var agents = []realAgent{
	{id: "qwen", env: "AGENTCOMPAT_QWEN", args: []string{"--acp"}, setHome: func(_ testing.TB, home, llmURL string) map[string]string {
		return map[string]string{"OPENAI_API_KEY": "x", "OPENAI_BASE_URL": llmURL + "/v1", "OPENAI_MODEL": "model"}
	}},
	{id: "opencode", env: "AGENTCOMPAT_OPENCODE", args: []string{"acp"}, setHome: func(t testing.TB, home, llmURL string) map[string]string {
		cfg := map[string]any{"autoupdate": false, "share": "disabled",
			// opencode runs its tools without asking unless told to ask.
			"permission": map[string]any{"bash": "ask", "edit": "ask"},
			"provider": map[string]any{"local": map[string]any{"npm": "@ai-sdk/openai-compatible", "name": "local",
				"options": map[string]any{"baseURL": llmURL + "/v1", "apiKey": "x"},
				"models":  map[string]any{"model": map[string]any{"name": "model"}}}},
			"model": "local/model"}
		dir := filepath.Join(home, ".config", "opencode")
		testkit.NoError(t, os.MkdirAll(dir, 0o700))
		b, err := json.Marshal(cfg)
		testkit.NoError(t, err)
		testkit.NoError(t, os.WriteFile(filepath.Join(dir, "opencode.json"), b, 0o600))
		return nil
	}},
}

// shellTools are the names agents give the tool that runs a command.
var shellTools = []string{"run_shell_command", "bash", "shell", "execute"}

// model is the scripted model behind every agent: what the current row
// wants, and what the agent asked.
type model struct {
	mu        sync.Mutex
	mode      string // text, tool or slow
	marker    string // the text of the current row's reply
	toolsSeen map[string]bool
	remembers bool // the last row's request carried the first row's reply
}

func (m *model) set(mode, marker string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mode, m.marker, m.remembers = mode, marker, false
}

func (m *model) reply(req map[string]any) llmserver.Reply {
	m.mu.Lock()
	defer m.mu.Unlock()
	tools := toolNames(req)
	for _, n := range tools {
		m.toolsSeen[n] = true
	}
	msgs, _ := req["messages"].([]any)
	all, _ := json.Marshal(msgs)
	if strings.Contains(string(all), "reply-prompt") && m.marker != "reply-prompt" {
		m.remembers = true
	}
	if len(tools) == 0 { // a side request (a title, a summary): not the turn
		return llmserver.Steps(llmserver.Text("side"), llmserver.Finish("stop"))
	}
	last, _ := lastMessage(msgs)
	switch {
	case last == "tool":
		return llmserver.Steps(llmserver.Text("tool done "+m.marker), llmserver.Finish("stop"))
	case m.mode == "tool":
		name := pick(tools)
		args, _ := json.Marshal(map[string]any{"command": "echo compat > tool-ran.txt", "description": "write a file"})
		return llmserver.Steps(llmserver.ToolCall("call_1", name, string(args)), llmserver.Finish("tool_calls"))
	case m.mode == "slow":
		return llmserver.Steps(llmserver.Text("slow start "), llmserver.Delay(90*time.Second), llmserver.Text("slow end"), llmserver.Finish("stop"))
	}
	return llmserver.Steps(llmserver.Text(m.marker), llmserver.Finish("stop"))
}

func toolNames(req map[string]any) []string {
	var out []string
	ts, _ := req["tools"].([]any)
	for _, x := range ts {
		o, _ := x.(map[string]any)
		f, _ := o["function"].(map[string]any)
		if n, isStr := f["name"].(string); isStr {
			out = append(out, n)
		}
	}
	return out
}

func lastMessage(msgs []any) (role string, ok bool) {
	if len(msgs) == 0 {
		return "", false
	}
	o, _ := msgs[len(msgs)-1].(map[string]any)
	role, ok = o["role"].(string)
	return role, ok
}

func pick(tools []string) string {
	for _, want := range shellTools {
		for _, n := range tools {
			if n == want {
				return n
			}
		}
	}
	return tools[0]
}

// rowT records why a row stopped, for the matrix.
type rowT struct {
	*testing.T
	step, reason string
}

func (r *rowT) Fatalf(format string, a ...any) {
	r.reason = r.step + ": " + fmt.Sprintf(format, a...)
	r.T.Fatalf(format, a...)
}

func (r *rowT) Fatal(a ...any) {
	r.reason = r.step + ": " + fmt.Sprint(a...)
	r.T.Fatal(a...)
}

// Outcome is one row's result.
type Outcome struct{ Status, Reason string }

// world is one agent's daemon, model and session.
type world struct {
	agent  realAgent
	d      *Daemon
	m      *model
	rec    string // the tee's directory
	cwd    string
	sid    string
	parent *testing.T
}

func TestACPAgents(t *testing.T) {
	node := os.Getenv("AGENTCOMPAT_NODE_DIR")
	tee := buildTee(t)
	troupe := testkit.BuildTroupe(t)
	var matrix []string
	for _, a := range agents {
		prog := os.Getenv(a.env)
		if prog == "" {
			matrix = append(matrix, fmt.Sprintf("%-9s %-12s %-8s %s", a.id, "-", "skipped", a.env+" not set"))
			continue
		}
		t.Run(a.id, func(t *testing.T) {
			w := newWorld(t, a, prog, tee, troupe, node)
			for _, r := range rows {
				out := w.run(t, r)
				matrix = append(matrix, fmt.Sprintf("%-9s %-12s %-8s %s", a.id, r.name, out.Status, out.Reason))
			}
			seen := make([]string, 0, len(w.m.toolsSeen))
			for n := range w.m.toolsSeen {
				seen = append(seen, n)
			}
			t.Logf("%s's tools: %v", a.id, seen)
			if *update {
				testkit.NoError(t, WriteRecordings(w.rec, filepath.Join("testdata", a.id), Normaliser{Paths: map[string]string{w.cwd: "/CWD", w.d.Home: "/HOME"}}))
			}
		})
	}
	text := "agent     row          result   reason\n" + strings.Join(matrix, "\n") + "\n"
	fmt.Print(text)
	if p := os.Getenv("AGENTCOMPAT_MATRIX"); p != "" {
		testkit.NoError(t, os.WriteFile(p, []byte(text), 0o600))
	}
}

func buildTee(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "troupe-acptee")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/troupehq/troupe/testkit/cmd/troupe-acptee").CombinedOutput()
	if err != nil {
		t.Fatalf("go build troupe-acptee: %v\n%s", err, out)
	}
	return bin
}

func newWorld(t *testing.T, a realAgent, prog, tee, troupe, node string) *world {
	m := &model{toolsSeen: map[string]bool{}}
	srv := llmserver.New(t, llmserver.Script{Model: "model", SupportsToolCalls: true}, llmserver.WithReplier(m.reply))
	agentHome := t.TempDir()
	env := map[string]string{"HOME": agentHome, "PATH": node + string(os.PathListSeparator) + os.Getenv("PATH")}
	for k, v := range a.setHome(t, agentHome, srv.URL()) {
		env[k] = v
	}
	w := &world{agent: a, m: m, rec: t.TempDir(), cwd: t.TempDir(), parent: t}
	home := t.TempDir()
	AgentHome(t, home, map[string]Agent{a.id: {Command: tee, Args: append([]string{w.rec, "--", prog}, a.args...), Env: env}})
	w.d = &Daemon{Troupe: troupe, Home: home}
	w.d.Start(t)
	return w
}

type row struct {
	name string
	run  func(w *world, t *rowT) Outcome
}

var rows = []row{
	{"prompt", (*world).prompt},
	{"permission", (*world).permission},
	{"cancel", (*world).cancel},
	{"kill+load", (*world).killLoad},
	{"restart", (*world).restart},
}

func (w *world) run(t *testing.T, r row) Outcome {
	var out Outcome
	rt := &rowT{}
	passed := t.Run(r.name, func(t *testing.T) {
		rt.T = t
		out = r.run(w, rt)
	})
	if !passed {
		return Outcome{Fails, rt.reason}
	}
	return out
}

func isAsk(f acpclient.Frame) bool { return f.Method == "session/request_permission" }

// turn prompts over c and reads up to the answer.
func turn(t *rowT, c *acpclient.Client, sid, text string) ([]acpclient.Frame, string) {
	id := c.Prompt(sid, text)
	fs := c.Until(func(f acpclient.Frame) bool { return f.Answers(id) })
	ans := fs[len(fs)-1]
	if ans.Error != nil {
		return fs, "error: " + ans.Error.Message
	}
	var res struct {
		StopReason string `json:"stopReason"`
	}
	ans.Decode(t, &res)
	return fs[:len(fs)-1], res.StopReason
}

func (w *world) prompt(t *rowT) Outcome {
	t.step = "session/new"
	a := w.d.Dial(t, "editor", wait)
	w.sid = NewSession(t, a, w.cwd, w.agent.id)
	b := w.d.Dial(t, "watcher", wait)
	b.Attach(map[string]any{"sessionId": w.sid, "historyPolicy": "none"})
	w.m.set("text", "reply-prompt")
	t.step = "prompt"
	fs, stop := turn(t, a, w.sid, "say the marker")
	text := acpclient.Chunks(t, fs)
	if stop != "end_turn" || !strings.Contains(text, "reply-prompt") {
		t.Fatalf("stop %q, text %q", stop, text)
	}
	t.step = "the watcher's stream"
	watched := b.Until(func(f acpclient.Frame) bool { return f.IsUpdate("agent_message_chunk") })
	if !strings.Contains(acpclient.Chunks(t, watched), "reply") {
		t.Fatalf("the watching client saw %q", acpclient.Chunks(t, watched))
	}
	t.step = "REST history"
	code, hist := w.d.Do(t, http.MethodGet, "/v1/sessions/"+w.sid+"/history")
	if code != http.StatusOK || !strings.Contains(hist, "reply-prompt") {
		t.Fatalf("history %d lacks the reply: %.300s", code, hist)
	}
	return Outcome{OK, ""}
}

func (w *world) permission(t *rowT) Outcome {
	t.step = "attach"
	a := w.d.Dial(t, "editor", wait)
	a.Attach(map[string]any{"sessionId": w.sid, "historyPolicy": "none"})
	b := w.d.Dial(t, "watcher", wait)
	_, bAtt := b.Attach(map[string]any{"sessionId": w.sid, "historyPolicy": "none"})
	w.m.set("tool", "reply-tool")
	id := a.Prompt(w.sid, "run the tool")
	t.step = "the permission request on the first client"
	var fs []acpclient.Frame
	var asked acpclient.Frame
	fs = a.Until(func(f acpclient.Frame) bool { return isAsk(f) || f.Answers(id) })
	if last := fs[len(fs)-1]; !isAsk(last) {
		return Outcome{Differs, "the agent asked no permission (ran the tool: " + fmt.Sprint(fileExists(filepath.Join(w.cwd, "tool-ran.txt"))) + "); answer " + last.Raw}
	}
	t.step = "the permission request on the watcher"
	bfs := b.Until(isAsk)
	asked = bfs[len(bfs)-1]
	var req struct {
		Options []struct {
			OptionID string `json:"optionId"`
			Kind     string `json:"kind"`
		} `json:"options"`
	}
	asked.DecodeParams(t, &req)
	opt := ""
	for _, o := range req.Options {
		if o.Kind == "allow_once" {
			opt = o.OptionID
		}
	}
	if opt == "" {
		t.Fatalf("no allow_once option: %s", asked.Raw)
	}
	b.AnswerPermission(asked.ID, opt)
	t.step = "the turn after the answer"
	rest := a.Until(func(f acpclient.Frame) bool { return f.Answers(id) })
	fs = append(fs, rest...)
	resolved := ""
	for _, f := range fs {
		if f.IsUpdate("permission_resolved") {
			resolved = f.Update(t).Update.ResolvedBy
		}
	}
	if resolved != bAtt.ClientID {
		t.Fatalf("the first client saw the permission resolved by %q, not the watcher %q", resolved, bAtt.ClientID)
	}
	if !fileExists(filepath.Join(w.cwd, "tool-ran.txt")) {
		t.Fatalf("the tool did not run; text %q", acpclient.Chunks(t, fs))
	}
	if acpclient.Count(fs, "tool_call") == 0 {
		return Outcome{Differs, "the tool ran but no tool_call update reached the client"}
	}
	if !strings.Contains(acpclient.Chunks(t, fs), "tool done") {
		return Outcome{Differs, "the tool ran, the reply after it did not stream: " + acpclient.Chunks(t, fs)}
	}
	return Outcome{OK, ""}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func (w *world) cancel(t *rowT) Outcome {
	a := w.d.Dial(t, "editor", wait)
	a.Attach(map[string]any{"sessionId": w.sid, "historyPolicy": "none"})
	w.m.set("slow", "reply-slow")
	t.step = "the slow stream's first chunk"
	id := a.Prompt(w.sid, "stream slowly")
	a.Until(func(f acpclient.Frame) bool { return f.IsUpdate("agent_message_chunk") })
	t.step = "the cancelled turn's answer"
	a.Send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": w.sid}})
	ans := a.WaitAnswerWithin(id, 30*time.Second)
	var res struct {
		StopReason string `json:"stopReason"`
	}
	if ans.Error != nil {
		return Outcome{Differs, "the cancelled turn answered an error: " + ans.Error.Message}
	}
	ans.Decode(t, &res)
	if res.StopReason != "cancelled" {
		return Outcome{Differs, "stopReason " + res.StopReason}
	}
	return Outcome{OK, ""}
}

// upstream says whether the agent's last start loaded its session or was
// given a fresh one.
func (w *world) upstream() string {
	rs, err := ReadRecordings(w.rec)
	if err != nil || len(rs) == 0 {
		return "no recording"
	}
	last := rs[len(rs)-1]
	for _, m := range last.Lines {
		if m.From == "troupe" && (m.Method() == "session/load" || m.Method() == "session/resume") {
			return m.Method()
		}
	}
	return "session/new (takeover brief)"
}

func (w *world) promptAgain(t *rowT, c *acpclient.Client, marker string) Outcome {
	w.m.set("text", marker)
	t.step = "prompt after it"
	fs, stop := turn(t, c, w.sid, "say the marker again")
	if stop != "end_turn" || !strings.Contains(acpclient.Chunks(t, fs), marker) {
		t.Fatalf("stop %q, text %q", stop, acpclient.Chunks(t, fs))
	}
	how := w.upstream()
	if !w.m.remembers {
		return Outcome{Differs, "answered, but the model's request lacked the first turn (" + how + ")"}
	}
	return Outcome{OK, how}
}

func (w *world) killLoad(t *rowT) Outcome {
	t.step = "kill"
	if code, body := w.d.Do(t, http.MethodPost, "/v1/sessions/"+w.sid+"/kill"); code != http.StatusAccepted {
		t.Fatalf("kill answered %d %s", code, body)
	}
	t.step = "session/load"
	c := w.d.Dial(t, "editor", wait)
	ans := c.WaitAnswer(c.Call("session/load", map[string]any{"sessionId": w.sid, "cwd": w.cwd, "mcpServers": []any{}}))
	if ans.Error != nil {
		t.Fatalf("session/load: %s", ans.Raw)
	}
	return w.promptAgain(t, c, "reply-load")
}

func (w *world) restart(t *rowT) Outcome {
	t.step = "stop"
	w.d.Stop(t)
	t.step = "start"
	w.d.Start(t)
	t.step = "attach"
	c := w.d.Dial(t, "editor", wait)
	c.Attach(map[string]any{"sessionId": w.sid, "historyPolicy": "none"})
	return w.promptAgain(t, c, "reply-restart")
}
