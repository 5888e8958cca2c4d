package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
)

// scriptedAgentHome is a daemon home whose config.json names the scripted ACP
// agent (testkit/cmd/troupe-acpagent) as "scripted", with its state in
// the returned directory, and any extra entries of agents.
func scriptedAgentHome(t testing.TB, env map[string]string) (home, state string) {
	t.Helper()
	home, state = t.TempDir(), t.TempDir()
	e := map[string]string{"ACPAGENT_STATE": state}
	for k, v := range env {
		e[k] = v
	}
	cfg := map[string]any{"agents": map[string]any{
		"scripted": map[string]any{"command": testkit.BuildACPAgent(t), "args": []string{"--from-config"}, "env": e},
	}}
	b, err := json.Marshal(cfg)
	testkit.NoError(t, err)
	testkit.NoError(t, os.WriteFile(filepath.Join(home, "config.json"), b, 0o600))
	return home, state
}

// newAgentSession opens a session on agent over c, with agentArgs.
func newAgentSession(t *testing.T, c *acpclient.Client, cwd, agent string, args ...string) string {
	t.Helper()
	meta := map[string]any{"agentId": agent}
	if len(args) > 0 {
		meta["agentArgs"] = args
	}
	var res struct {
		SessionID string `json:"sessionId"`
	}
	c.WaitAnswer(c.Call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}, "_meta": map[string]any{"hydra-acp": meta}})).Decode(t, &res)
	if res.SessionID == "" {
		t.Fatal("session/new answered no session id")
	}
	return res.SessionID
}

// promptTurn sends script as a prompt and reads up to its answer: the
// frames (updates, requests) and the answer's stop reason.
func promptTurn(t *testing.T, c *acpclient.Client, sid, script string) ([]acpclient.Frame, string) {
	t.Helper()
	id := c.Prompt(sid, script)
	fs := c.Until(func(f acpclient.Frame) bool { return f.Answers(id) })
	var res struct {
		StopReason string `json:"stopReason"`
	}
	ans := fs[len(fs)-1]
	if ans.Error != nil {
		return fs[:len(fs)-1], "error: " + ans.Error.Message
	}
	ans.Decode(t, &res)
	return fs[:len(fs)-1], res.StopReason
}

// lines is s's agent text split at "|" (scripts say one thing a line).
func contains(t *testing.T, got, want string) {
	t.Helper()
	if !strings.Contains(got, want) {
		t.Fatalf("%q does not contain %q", got, want)
	}
}
