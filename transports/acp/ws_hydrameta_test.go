package acp_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
	"github.com/troupehq/troupe/transports/acp"
	"github.com/troupehq/troupe/transports/acp/pipeline"
	"github.com/troupehq/troupe/transports/acpupdate/acpupdatetest"
)

// newHydraRig is a rig with a model catalog, where a connection dialled
// with ?peer=<name> is that extension's.
func newHydraRig(t *testing.T, script llmserver.Script) *wsRig {
	t.Helper()
	return newWSRig(t, script, "yolo", func(cfg *acp.WebSocketConfig) {
		cfg.Models = acpupdatetest.Models{}
		cfg.Pipeline = pipeline.New() // the clients' and the extensions'
		cfg.Peer = func(r *http.Request) (pipeline.Peer, bool) {
			name, kind := r.URL.Query().Get("peer"), r.URL.Query().Get("kind")
			if kind == "" {
				kind = pipeline.KindExtension
			}
			return pipeline.Peer{Kind: kind, Name: name}, name != ""
		}
	})
}

// dialPeer connects as extension name.
func (r *wsRig) dialPeer(t testing.TB, name string) *acpclient.Client {
	t.Helper()
	return acpclient.Dial(t, acpclient.Options{
		URL:          acpclient.URL(r.srv.URL, "", "peer="+name),
		Subprotocols: []string{acp.Subprotocol, acpclient.TokenEntry("secret")},
		Name:         name, Wait: 10 * time.Second,
	})
}

// palette is what Hydra's TUI reads off an attach-like answer to drive
// /mode, /model, Shift-Tab and slash completion.
type palette struct {
	ConfigOptions []struct {
		ID           string `json:"id"`
		CurrentValue string `json:"currentValue"`
		Options      []struct {
			Value string `json:"value"`
		} `json:"options"`
	} `json:"configOptions"`
	Meta struct {
		Hydra struct {
			AvailableModes []struct {
				ID   string `json:"id"`
				Name string `json:"name"`
			} `json:"availableModes"`
			AvailableCommands *[]command `json:"availableCommands"`
		} `json:"hydra-acp"`
	} `json:"_meta"`
}

type command struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

func commandNames(cmds []command) []string {
	out := []string{}
	for _, c := range cmds {
		out = append(out, c.Name)
	}
	return out
}

// requirePalette checks an answer carries the config options (mode and
// model, each with its values), the modes and the commands.
func requirePalette(t *testing.T, what string, f acpclient.Frame) palette {
	t.Helper()
	var p palette
	f.Decode(t, &p)
	ids := []string{}
	for _, o := range p.ConfigOptions {
		if len(o.Options) == 0 || o.CurrentValue == "" {
			t.Errorf("%s: config option %s has no values or no current value: %s", what, o.ID, f.Raw)
		}
		ids = append(ids, o.ID)
	}
	if !slices.Equal(ids, []string{"mode", "model"}) {
		t.Errorf("%s: configOptions %v, want mode and model: %s", what, ids, f.Raw)
	}
	modes := []string{}
	for _, m := range p.Meta.Hydra.AvailableModes {
		modes = append(modes, m.ID)
	}
	if !slices.Equal(modes, []string{"default", "auto_edit", "yolo"}) {
		t.Errorf("%s: _meta.hydra-acp.availableModes %v: %s", what, modes, f.Raw)
	}
	if p.Meta.Hydra.AvailableCommands == nil {
		t.Fatalf("%s: no _meta.hydra-acp.availableCommands: %s", what, f.Raw)
	}
	return p
}

// Every answer that puts a client in a session (new, load, attach, fork)
// carries what Hydra's TUI drives /mode, /model and Shift-Tab from, and
// the slash commands; a process registering or losing its verbs sends
// every attached client available_commands_update.
func TestAttachAnswersCarryHydrasPalettes(t *testing.T) {
	done := llmserver.Steps(llmserver.Text("done"))
	r := newHydraRig(t, llmserver.Script{Model: "tiny", Default: &done})
	a := r.dial(t, "a")
	newID := a.Call("session/new", map[string]any{"cwd": r.cwd, "mcpServers": []any{}})
	nf := a.WaitAnswer(newID)
	p := requirePalette(t, "session/new", nf)
	if names := commandNames(*p.Meta.Hydra.AvailableCommands); !slices.Contains(names, "hydra") {
		t.Errorf("session/new: availableCommands %v lack hydra", names)
	}
	var created struct {
		SessionID string `json:"sessionId"`
	}
	nf.Decode(t, &created)
	sid := created.SessionID
	a.WaitAnswer(a.Prompt(sid, "hi"))

	b := r.dial(t, "b")
	requirePalette(t, "session/attach", answerOf(b, b.Call("session/attach", map[string]any{"sessionId": sid, "historyPolicy": "none"})))
	l := r.dial(t, "l")
	requirePalette(t, "session/load", answerOf(l, l.Call("session/load", map[string]any{"sessionId": sid, "cwd": r.cwd, "mcpServers": []any{}})))
	requirePalette(t, "hydra-acp/session/fork", a.WaitAnswer(a.Call("hydra-acp/session/fork", map[string]any{"sessionId": sid})))

	ext := r.dialPeer(t, "ext")
	reg := ext.WaitAnswer(ext.Call("hydra-acp/commands/register", map[string]any{"commands": []any{
		map[string]any{"verb": "greet", "argsHint": "<name>", "description": "Say hello"}}}))
	testkit.Equal(t, reg.Error == nil, true)
	want := command{Name: "hydra ext greet <name>", Description: "Say hello"}
	for _, c := range []*acpclient.Client{a, b, l} {
		cmds := commandsUpdate(t, c, sid)
		if !slices.Contains(cmds, want) || !slices.Contains(commandNames(cmds), "hydra") {
			t.Errorf("available_commands_update %v, want hydra and %v", cmds, want)
		}
	}
	c := r.dial(t, "c")
	p = requirePalette(t, "session/attach after register", answerOf(c, c.Call("session/attach", map[string]any{"sessionId": sid, "historyPolicy": "none"})))
	if !slices.Contains(*p.Meta.Hydra.AvailableCommands, want) {
		t.Errorf("attach after register: availableCommands %v lack %v", *p.Meta.Hydra.AvailableCommands, want)
	}

	testkit.NoError(t, ext.WS.Close())
	if cmds := commandsUpdate(t, a, sid); slices.Contains(cmds, want) {
		t.Errorf("after the extension left: available_commands_update %v still has %v", cmds, want)
	}
}

// answerOf reads up to request id's answer.
func answerOf(c *acpclient.Client, id int) acpclient.Frame {
	fs := c.Until(func(f acpclient.Frame) bool { return f.Answers(id) })
	return fs[len(fs)-1]
}

// commandsUpdate reads up to session sid's next available_commands_update.
func commandsUpdate(t *testing.T, c *acpclient.Client, sid string) []command {
	t.Helper()
	fs := c.Until(func(f acpclient.Frame) bool { return f.IsUpdate("available_commands_update") })
	var p struct {
		SessionID string `json:"sessionId"`
		Update    struct {
			AvailableCommands []command `json:"availableCommands"`
		} `json:"update"`
	}
	testkit.NoError(t, json.Unmarshal(fs[len(fs)-1].Params, &p))
	testkit.Equal(t, p.SessionID, sid)
	return p.Update.AvailableCommands
}

// A model is named over ACP as /v1/agents, /v1/config and REST entries
// advertise it, provider/model (Hydra's --model sends it so in
// session/new's _meta), or by its id alone; another provider's is unknown.
func TestACPTakesProviderSlashModel(t *testing.T) {
	done := llmserver.Steps(llmserver.Text("done"))
	r := newHydraRig(t, llmserver.Script{Model: "tiny", Default: &done})
	c := r.dial(t, "c")
	nf := c.WaitAnswer(c.Call("session/new", map[string]any{"cwd": r.cwd, "mcpServers": []any{},
		"_meta": map[string]any{"hydra-acp": map[string]any{"model": "openai/tiny"}}}))
	if nf.Error != nil {
		t.Fatalf("session/new with model openai/tiny: %s", nf.Raw)
	}
	var created struct {
		SessionID string `json:"sessionId"`
		Meta      struct {
			Hydra struct {
				CurrentModel string `json:"currentModel"`
			} `json:"hydra-acp"`
		} `json:"_meta"`
	}
	nf.Decode(t, &created)
	testkit.Equal(t, created.Meta.Hydra.CurrentModel, "tiny")
	sid := created.SessionID
	for _, call := range []struct {
		method string
		params map[string]any
	}{
		{"session/set_model", map[string]any{"sessionId": sid, "modelId": "openai/tiny"}},
		{"session/set_config_option", map[string]any{"sessionId": sid, "configId": "model", "value": "openai/tiny"}},
		{"session/set_model", map[string]any{"sessionId": sid, "modelId": "tiny"}},
	} {
		if f := answerOf(c, c.Call(call.method, call.params)); f.Error != nil {
			t.Errorf("%s %v: %s", call.method, call.params, f.Raw)
		}
	}
	f := answerOf(c, c.Call("session/set_model", map[string]any{"sessionId": sid, "modelId": "anthropic/tiny"}))
	if f.Error == nil || f.Error.Code != -32602 {
		t.Errorf("set_model anthropic/tiny (not configured): %s, want -32602", f.Raw)
	}
	f = c.WaitAnswer(c.Call("session/new", map[string]any{"cwd": r.cwd, "mcpServers": []any{},
		"_meta": map[string]any{"hydra-acp": map[string]any{"model": "anthropic/tiny"}}}))
	if f.Error == nil || f.Error.Code != -32602 {
		t.Errorf("session/new with model anthropic/tiny (not configured): %s, want -32602", f.Raw)
	}
}
