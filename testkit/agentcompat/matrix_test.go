//go:build agentcompat

package agentcompat

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/agentcompat/acprec"
	"github.com/troupehq/troupe/testkit/llmserver"
)

var update = flag.Bool("update", false, "write each agent's recordings into testdata/<agent>/")

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
	cwd       string // the session's directory, where the write row writes
	remembers bool   // the last row's request carried the first row's reply
}

func (m *model) Set(mode, marker string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mode, m.marker, m.remembers = mode, marker, false
}

func (m *model) Remembers() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.remembers
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
	case m.mode == "write":
		name, args := writeCall(tools, filepath.Join(m.cwd, "agent-wrote.txt"))
		return llmserver.Steps(llmserver.ToolCall("call_2", name, args), llmserver.Finish("tool_calls"))
	case m.mode == "slow":
		return llmserver.Steps(llmserver.Text("slow start "), llmserver.Delay(90*time.Second), llmserver.Text("slow end"), llmserver.Finish("stop"))
	}
	return llmserver.Steps(llmserver.Text(m.marker), llmserver.Finish("stop"))
}

// writeCall is a call of the agent's file-writing tool, in its own
// argument names.
func writeCall(tools []string, path string) (string, string) {
	name, key := "write_file", "file_path" // qwen-code
	for _, n := range tools {
		if n == "write" { // opencode
			name, key = "write", "filePath"
		}
	}
	b, _ := json.Marshal(map[string]any{key: path, "content": "written by the agent\n"})
	return name, string(b)
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
			w, m, agentHome := newWorld(t, a, prog, tee, troupe, node)
			for _, r := range rows {
				out := w.run(t, r)
				matrix = append(matrix, fmt.Sprintf("%-9s %-12s %-8s %s", a.id, r.name, out.Status, out.Reason))
			}
			seen := make([]string, 0, len(m.toolsSeen))
			for n := range m.toolsSeen {
				seen = append(seen, n)
			}
			t.Logf("%s's tools: %v", a.id, seen)
			for _, l := range strings.Split(w.d.Proc.Stderr(), "\n") {
				if strings.Contains(l, " WRN ") || strings.Contains(l, " ERR ") {
					t.Logf("daemon: %s", l)
				}
			}
			if *update {
				testkit.NoError(t, acprec.WriteRecordings(w.rec, filepath.Join("testdata", a.id), acprec.Normaliser{Paths: map[string]string{w.cwd: "/CWD", w.d.Home: "/HOME", agentHome: "/AGENTDIR"}, CutAgentStrings: 4096}))
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

// newWorld starts the model and the daemon for agent a; it returns the
// world, its model and the agent's HOME.
func newWorld(t *testing.T, a realAgent, prog, tee, troupe, node string) (*world, *model, string) {
	m := &model{toolsSeen: map[string]bool{}}
	srv := llmserver.New(t, llmserver.Script{Model: "model", SupportsToolCalls: true}, llmserver.WithReplier(m.reply))
	agentHome := t.TempDir()
	env := map[string]string{"HOME": agentHome, "PATH": node + string(os.PathListSeparator) + os.Getenv("PATH")}
	for k, v := range a.setHome(t, agentHome, srv.URL()) {
		env[k] = v
	}
	w := &world{agentID: a.id, m: m, rec: t.TempDir(), cwd: t.TempDir()}
	m.cwd = w.cwd
	home := t.TempDir()
	AgentHome(t, home, map[string]Agent{a.id: {Command: tee, Args: append([]string{w.rec, "--", prog}, a.args...), Env: env}})
	w.d = &Daemon{Troupe: troupe, Home: home, Owner: t}
	w.d.Start(t)
	return w, m, agentHome
}
