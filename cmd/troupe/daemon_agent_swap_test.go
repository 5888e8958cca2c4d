package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"gopkg.in/yaml.v3"
)

// `/hydra agent <id>` switches a session to another configured agent:
// the switch is recorded, the session's transformers hear agent.swap
// before and after it, and the new agent takes over at the next prompt
// in a session of its own, told the conversation so far.
func TestDaemonExternalAgentSwap(t *testing.T) {
	home, state := t.TempDir(), t.TempDir()
	bin := testkit.BuildACPAgent(t)
	env := map[string]string{"ACPAGENT_STATE": state}
	agents := map[string]any{"agents": map[string]any{
		"scripted": map[string]any{"command": bin, "args": []string{"--first"}, "env": env},
		"second":   map[string]any{"command": bin, "args": []string{"--second"}, "env": env},
	}}
	b, err := json.Marshal(agents)
	testkit.NoError(t, err)
	testkit.NoError(t, os.WriteFile(filepath.Join(home, "config.json"), b, 0o600))
	log := filepath.Join(t.TempDir(), "tr.log")
	y, err := yaml.Marshal(map[string]any{
		"transformers": []any{map[string]any{"name": "tr", "command": []string{testkit.BuildPlugin(t)},
			"env": map[string]string{"PLUGIN_INTERCEPTS": "lifecycle:agent.swap", "PLUGIN_LOG": log}}},
		"defaultTransformers": []string{"tr"},
	})
	testkit.NoError(t, err)
	testkit.NoError(t, os.WriteFile(filepath.Join(home, "config.yml"), y, 0o600))
	d := startDaemon(t, home, nil)
	d.waitRunning(t, "transformers", "tr", log, 0)

	a := d.dialACP(t, "editor")
	sid := newAgentSession(t, a, t.TempDir(), "scripted")
	_, stop := promptTurn(t, a, sid, "say the first answer")
	testkit.Equal(t, stop, "end_turn")

	reply, _ := slash(t, a, sid, "/hydra agent nope")
	contains(t, reply, "no agent `nope` is configured")
	reply, _ = slash(t, a, sid, "/hydra agent second")
	contains(t, reply, "Switched this session to second")
	fs, stop := promptTurn(t, a, sid, "args\nrecall")
	testkit.Equal(t, stop, "end_turn")
	text := acpclient.Chunks(t, fs)
	contains(t, text, "args: --second")
	contains(t, text, "the first answer") // in the takeover brief

	var info struct {
		Meta struct {
			Hydra struct{ AgentID string } `json:"hydra-acp"`
		} `json:"_meta"`
	}
	c := d.dialACP(t, "phone")
	c.WaitAnswer(c.Call("session/attach", map[string]any{"sessionId": sid, "historyPolicy": "none"})).Decode(t, &info)
	testkit.Equal(t, info.Meta.Hydra.AgentID, "second")

	var phases []string
	testkit.Eventually(t, acpWait, "agent.swap told to the transformer", func() bool {
		phases = nil
		for _, l := range logLines(t, log) {
			params, _ := l["params"].(map[string]any)
			if l["method"] == "hydra-acp/transformer/session_event" && params["event"] == "agent.swap" {
				p, _ := params["payload"].(map[string]any)
				phases = append(phases, p["phase"].(string)+":"+p["agentId"].(string))
			}
		}
		return len(phases) == 2
	})
	testkit.Equal(t, phases[0], "pre:scripted")
	testkit.Equal(t, phases[1], "post:second")
}

// A fork of an agent's session runs on that agent (or the one the fork
// names) in a session of its own, told the conversation it inherits.
func TestDaemonExternalAgentFork(t *testing.T) {
	home, _ := scriptedAgentHome(t, nil)
	d := startDaemon(t, home, nil)
	a := d.dialACP(t, "editor")
	sid := newAgentSession(t, a, t.TempDir(), "scripted")
	_, stop := promptTurn(t, a, sid, "say before the fork")
	testkit.Equal(t, stop, "end_turn")
	var fork struct {
		SessionID string `json:"sessionId"`
		Meta      struct {
			Hydra struct{ AgentID string } `json:"hydra-acp"`
		} `json:"_meta"`
	}
	a.WaitAnswer(a.Call("hydra-acp/session/fork", map[string]any{"sessionId": sid})).Decode(t, &fork)
	testkit.Equal(t, fork.Meta.Hydra.AgentID, "scripted")
	a.WaitAnswer(a.Call("session/attach", map[string]any{"sessionId": fork.SessionID, "historyPolicy": "none"}))
	fs, stop := promptTurn(t, a, fork.SessionID, "recall")
	testkit.Equal(t, stop, "end_turn")
	text := acpclient.Chunks(t, fs)
	contains(t, text, "seen: \nbrief: ") // a session of its own
	contains(t, text, "before the fork") // in the brief
}

// REST's fork of an agent's session keeps that agent, as ACP's does: the
// fork runs on it in an upstream session of its own, told the inherited
// conversation; naming a configured agent picks that one.
func TestDaemonExternalAgentRESTFork(t *testing.T) {
	home, _ := scriptedAgentHome(t, nil)
	d := startDaemon(t, home, nil)
	a := d.dialACP(t, "editor")
	sid := newAgentSession(t, a, t.TempDir(), "scripted")
	_, stop := promptTurn(t, a, sid, "say before the fork")
	testkit.Equal(t, stop, "end_turn")

	var fork struct {
		SessionID string `json:"sessionId"`
	}
	d.call(t, http.MethodPost, "/v1/sessions/"+sid+"/fork", map[string]any{}, http.StatusCreated, &fork)
	var entry struct {
		AgentID string `json:"agentId"`
	}
	d.call(t, http.MethodGet, "/v1/sessions/"+fork.SessionID, nil, http.StatusOK, &entry)
	testkit.Equal(t, entry.AgentID, "scripted")
	a.WaitAnswer(a.Call("session/attach", map[string]any{"sessionId": fork.SessionID, "historyPolicy": "none"}))
	fs, stop := promptTurn(t, a, fork.SessionID, "recall")
	testkit.Equal(t, stop, "end_turn")
	text := acpclient.Chunks(t, fs)
	contains(t, text, "seen: \nbrief: ") // a session of its own
	contains(t, text, "before the fork") // in the brief

	d.call(t, http.MethodPost, "/v1/sessions/"+sid+"/fork", map[string]any{"agentId": "troupe"}, http.StatusCreated, &fork)
	d.call(t, http.MethodGet, "/v1/sessions/"+fork.SessionID, nil, http.StatusOK, &entry)
	testkit.Equal(t, entry.AgentID, "troupe")
	d.call(t, http.MethodPost, "/v1/sessions/"+sid+"/fork", map[string]any{"agentId": "nope"}, http.StatusBadRequest, nil)
}
