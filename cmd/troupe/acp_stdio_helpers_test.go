package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// acpStdio is `troupe acp` driven over its stdin and stdout, in yolo mode
// so MCP calls need no approval.
type acpStdio struct {
	t    *testing.T
	p    *testkit.Proc
	next int
}

func startACPStdio(t *testing.T, home string, env, model []string) *acpStdio {
	t.Helper()
	args := append([]string{"acp", "--home", home, "--approval-mode", "yolo", "--log-level", "info"}, model...)
	a := &acpStdio{t: t, p: testkit.Start(t, testkit.BuildTroupe(t), env, args...)}
	a.answer(a.call("initialize", map[string]any{"protocolVersion": 1}))
	return a
}

func (a *acpStdio) call(method string, params any) int {
	a.t.Helper()
	a.next++
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": a.next, "method": method, "params": params})
	testkit.NoError(a.t, err)
	_, err = a.p.Stdin.Write(append(b, '\n'))
	testkit.NoError(a.t, err)
	return a.next
}

// until reads frames up to and including the first cond accepts.
func (a *acpStdio) until(cond func(acpclient.Frame) bool) []acpclient.Frame {
	a.t.Helper()
	var fs []acpclient.Frame
	for {
		line, ok := a.p.ReadLine(acpWait)
		if !ok {
			a.t.Fatalf("troupe acp: no message in %s; stderr:\n%s", acpWait, a.p.Stderr())
		}
		f := acpclient.Parse(a.t, []byte(line))
		fs = append(fs, f)
		if cond(f) {
			return fs
		}
	}
}

func (a *acpStdio) answer(id int) []acpclient.Frame {
	fs := a.until(func(f acpclient.Frame) bool { return f.Answers(id) })
	if last := fs[len(fs)-1]; last.Error != nil {
		a.t.Fatalf("troupe acp answered %s", last.Raw)
	}
	return fs
}

// newSession creates a session with the MCP servers given as ACP's
// mcpServers entries.
func (a *acpStdio) newSession(servers ...map[string]any) string {
	a.t.Helper()
	if servers == nil {
		servers = []map[string]any{}
	}
	fs := a.answer(a.call("session/new", map[string]any{"cwd": a.t.TempDir(), "mcpServers": servers}))
	var res struct {
		SessionID string `json:"sessionId"`
	}
	fs[len(fs)-1].Decode(a.t, &res)
	return res.SessionID
}

// promptToEnd prompts and returns the frames up to the answer and its stop
// reason.
func (a *acpStdio) promptToEnd(sid, text string) ([]acpclient.Frame, string) {
	a.t.Helper()
	id := a.call("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}})
	fs := a.answer(id)
	var res struct {
		StopReason string `json:"stopReason"`
	}
	fs[len(fs)-1].Decode(a.t, &res)
	return fs, res.StopReason
}

// mcpServer is the test MCP server as an ACP stdio entry named t.
func mcpServer(t *testing.T, args ...string) map[string]any {
	return map[string]any{"name": "t", "command": testkit.BuildMCPTestServer(t), "args": append([]string{}, args...), "env": []any{}}
}

// offered is the tool names a chat request offered the model: native
// tool definitions, or the "- name(…): …" lines of the text tool style's
// system prompt.
func offered(r llmserver.Request) []string {
	var out []string
	tools, _ := r.JSON["tools"].([]any)
	for _, tl := range tools {
		fn, _ := tl.(map[string]any)["function"].(map[string]any)
		if name, ok := fn["name"].(string); ok {
			out = append(out, name)
		}
	}
	msgs, _ := r.JSON["messages"].([]any)
	if len(msgs) == 0 {
		return out
	}
	if m, _ := msgs[0].(map[string]any); m["role"] == "system" {
		content, _ := m["content"].(string)
		for _, line := range strings.Split(content, "\n") {
			if name, ok := strings.CutPrefix(line, "- "); ok {
				out = append(out, strings.FieldsFunc(name, func(r rune) bool { return r == '(' || r == ':' })[0])
			}
		}
	}
	return out
}

// toolUpdates is the tool_call_update frames of one call, in order.
func toolUpdates(t *testing.T, fs []acpclient.Frame, callID string) []struct{ status, text string } {
	var out []struct{ status, text string }
	for _, f := range fs {
		if !f.IsUpdate("tool_call_update") {
			continue
		}
		var u struct {
			Update struct {
				ToolCallID string `json:"toolCallId"`
				Status     string `json:"status"`
				Content    []struct {
					Content struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"content"`
			} `json:"update"`
		}
		testkit.NoError(t, json.Unmarshal(f.Params, &u))
		if u.Update.ToolCallID != callID {
			continue
		}
		text := ""
		if len(u.Update.Content) > 0 {
			text = u.Update.Content[0].Content.Text
		}
		out = append(out, struct{ status, text string }{u.Update.Status, text})
	}
	return out
}
