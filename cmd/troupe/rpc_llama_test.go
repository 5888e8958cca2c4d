package main

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
)

// --mode rpc on a llama config: the config is offered as the model, its
// server starts with the first prompt, the reply streams from it, and it
// ends with the process.
func TestRPCOnALlamaConfig(t *testing.T) {
	home := llamaHome(t, []string{"tiny"})
	p := testkit.Start(t, testkit.BuildTroupe(t), nil,
		"--mode", "rpc", "--home", home, "--cwd", t.TempDir(), "--provider", "llama", "--model", "tiny")
	send := func(line string) {
		_, err := io.WriteString(p.Stdin, line+"\n")
		testkit.NoError(t, err)
	}
	send(`{"id":"s","type":"get_state"}`)
	send(`{"id":"p","type":"prompt","message":"hello from rpc"}`)
	var model map[string]any
	var text strings.Builder
	for done := false; !done; {
		line, ok := p.ReadLine(30 * time.Second)
		if !ok {
			t.Fatalf("no agent_end; stderr:\n%s", p.Stderr())
		}
		var m map[string]any
		testkit.NoError(t, json.Unmarshal([]byte(line), &m))
		switch {
		case m["type"] == "response" && m["id"] == "s":
			model, _ = m["data"].(map[string]any)["model"].(map[string]any)
		case m["type"] == "response" && m["success"] != true:
			t.Fatalf("failed: %s", line)
		case m["type"] == "message_update":
			if ev, _ := m["assistantMessageEvent"].(map[string]any); ev["type"] == "text_delta" {
				text.WriteString(ev["delta"].(string))
			}
		case m["type"] == "agent_end":
			done = true
		}
	}
	if model["provider"] != "llama" || model["id"] != "tiny" {
		t.Fatalf("state's model: %v", model)
	}
	if !strings.Contains(text.String(), "hello from rpc") {
		t.Fatalf("reply %q does not echo the prompt", text.String())
	}
	p.Stdin.Close()
	if code := p.Wait(t, 30*time.Second); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.Stderr())
	}
}
