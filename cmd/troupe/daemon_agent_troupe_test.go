package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// `troupe acp` is an ACP agent like any other: a daemon hosts it as a
// session's backend. Its reply streams through the outer daemon's log; its
// permission request for a command is the outer clients' to answer; a
// cold outer session's next prompt starts it again and it loads the
// session from its own home.
func TestDaemonHostsTroupeACP(t *testing.T) {
	var mu sync.Mutex
	var last []byte
	record := llmserver.OnRequest(func(r llmserver.Request) {
		mu.Lock()
		defer mu.Unlock()
		last = r.Body
	})
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("hello from inside")),
		llmserver.Steps(llmserver.ToolCall("c1", "bash", `{"command":"echo nested"}`)),
		llmserver.Steps(llmserver.Text("ran it")),
		llmserver.Steps(llmserver.Text("still here")),
		llmserver.Steps(llmserver.Text("slow "), llmserver.Delay(time.Minute), llmserver.Text("never")),
	}}, record)
	home, inner := t.TempDir(), t.TempDir()
	cfg := map[string]any{"agents": map[string]any{"inner": map[string]any{
		"command": testkit.BuildTroupe(t),
		"args":    []string{"acp", "--home", inner, "--provider", "openai", "--model", "tiny", "--base-url", srv.URL() + "/v1"},
		"env":     map[string]string{"OPENAI_API_KEY": "none"},
	}}}
	b, err := json.Marshal(cfg)
	testkit.NoError(t, err)
	testkit.NoError(t, os.WriteFile(filepath.Join(home, "config.json"), b, 0o600))
	d := startDaemon(t, home, nil)
	a := d.dialACP(t, "editor")
	cwd := t.TempDir()
	sid := newAgentSession(t, a, cwd, "inner")

	fs, stop := promptTurn(t, a, sid, "say hello")
	testkit.Equal(t, stop, "end_turn")
	testkit.Equal(t, acpclient.Chunks(t, fs), "hello from inside")

	w := d.dialACP(t, "watcher")
	w.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})
	id := a.Prompt(sid, "run something")
	isAsk := func(f acpclient.Frame) bool { return f.Method == "session/request_permission" }
	w.Until(isAsk)
	asked := a.Until(isAsk)
	a.AnswerPermission(asked[len(asked)-1].ID, "allow_once")
	fs = a.Until(func(f acpclient.Frame) bool { return f.Answers(id) })
	text := acpclient.Chunks(t, fs)
	contains(t, text, "ran it")
	if acpclient.Count(fs, "tool_call_update") == 0 || !strings.Contains(strings.Join(frameRaws(fs), "\n"), "nested") {
		t.Fatalf("the nested call's output did not come through: %v", frameRaws(fs))
	}

	d.call(t, "POST", "/v1/sessions/"+sid+"/kill", nil, 202, nil)
	c := d.dialACP(t, "later")
	c.WaitAnswer(c.Call("session/load", map[string]any{"sessionId": sid, "cwd": cwd, "mcpServers": []any{}}))
	fs, stop = promptTurn(t, c, sid, "are you there")
	testkit.Equal(t, stop, "end_turn")
	testkit.Equal(t, acpclient.Chunks(t, fs), "still here")
	// The inner troupe answered with the whole conversation before it.
	mu.Lock()
	contains(t, string(last), "hello from inside")
	contains(t, string(last), "nested")
	mu.Unlock()

	// A cancel reaches the inner troupe's run.
	id = c.Prompt(sid, "take your time")
	c.Until(func(f acpclient.Frame) bool { return f.IsUpdate("agent_message_chunk") })
	c.Send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": sid}})
	testkit.Equal(t, stopReasonOf(t, c.WaitAnswer(id)), "cancelled")
}

func frameRaws(fs []acpclient.Frame) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Raw
	}
	return out
}
