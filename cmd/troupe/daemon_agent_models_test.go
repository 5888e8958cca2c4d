package main

import (
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
)

// modelOption is the model config option of an answer's configOptions.
func modelOption(t *testing.T, f acpclient.Frame) (current string, values []string) {
	t.Helper()
	var res struct {
		ConfigOptions []struct {
			ID           string `json:"id"`
			CurrentValue string `json:"currentValue"`
			Options      []struct {
				Value string `json:"value"`
			} `json:"options"`
		} `json:"configOptions"`
	}
	f.Decode(t, &res)
	for _, o := range res.ConfigOptions {
		if o.ID == "model" {
			for _, v := range o.Options {
				values = append(values, v.Value)
			}
			return o.CurrentValue, values
		}
	}
	t.Fatalf("no model option in %s", f.Raw)
	return "", nil
}

// A session on an external agent offers the agent's models (its
// session/new answer's), not troupe's; session/set_model records the
// choice and forwards it to the agent before its next prompt; a model
// the agent did not advertise is refused.
func TestDaemonExternalAgentSetModelForwarded(t *testing.T) {
	home, _ := scriptedAgentHome(t, nil)
	d := startDaemon(t, home, nil)
	a := d.dialACP(t, "editor")
	// Before the agent has run, it has said nothing of its models: the
	// session offers none (not troupe's).
	var created struct {
		SessionID     string `json:"sessionId"`
		ConfigOptions []struct {
			ID string `json:"id"`
		} `json:"configOptions"`
	}
	a.WaitAnswer(a.Call("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{},
		"_meta": map[string]any{"hydra-acp": map[string]any{"agentId": "scripted"}}})).Decode(t, &created)
	for _, o := range created.ConfigOptions {
		if o.ID == "model" {
			t.Fatalf("a model option before the agent said its models: %+v", created)
		}
	}
	sid := created.SessionID
	fs, stop := promptTurn(t, a, sid, "model")
	testkit.Equal(t, stop, "end_turn")
	contains(t, acpclient.Chunks(t, fs), "model: fast via start")

	b := d.dialACP(t, "browser")
	cur, vals := modelOption(t, b.WaitAnswer(b.Call("session/attach", map[string]any{"sessionId": sid, "historyPolicy": "none"})))
	testkit.Equal(t, cur, "fast")
	testkit.Equal(t, len(vals), 2)
	testkit.Equal(t, vals[1], "smart")

	if ans := a.WaitAnswer(a.Call("session/set_model", map[string]any{"sessionId": sid, "modelId": "smart"})); ans.Error != nil {
		t.Fatalf("set_model: %s", ans.Raw)
	}
	if ans := a.WaitAnswer(a.Call("session/set_model", map[string]any{"sessionId": sid, "modelId": "tiny"})); ans.Error == nil || ans.Error.Code != -32602 {
		t.Fatalf("a model the agent does not offer: %s", ans.Raw)
	}
	fs, stop = promptTurn(t, a, sid, "model")
	testkit.Equal(t, stop, "end_turn")
	contains(t, acpclient.Chunks(t, fs), "model: smart via set_model")

	c := d.dialACP(t, "phone")
	cur, _ = modelOption(t, c.WaitAnswer(c.Call("session/attach", map[string]any{"sessionId": sid, "historyPolicy": "none"})))
	testkit.Equal(t, cur, "smart")
}

// An agent that does not take session/set_model gets the choice as its
// model config option (session/set_config_option), the reference's
// fallback; a client's set_config_option of the model does the same.
func TestDaemonExternalAgentModelConfigOptionFallback(t *testing.T) {
	home, _ := scriptedAgentHome(t, map[string]string{"ACPAGENT_NO_SET_MODEL": "1"})
	d := startDaemon(t, home, nil)
	a := d.dialACP(t, "editor")
	sid := newAgentSession(t, a, t.TempDir(), "scripted")
	_, stop := promptTurn(t, a, sid, "say hi")
	testkit.Equal(t, stop, "end_turn")

	cur, _ := modelOption(t, a.WaitAnswer(a.Call("session/set_config_option", map[string]any{"sessionId": sid, "configId": "model", "value": "smart"})))
	testkit.Equal(t, cur, "smart")
	fs, stop := promptTurn(t, a, sid, "model")
	testkit.Equal(t, stop, "end_turn")
	contains(t, acpclient.Chunks(t, fs), "model: smart via set_config_option")
}
