package acp

import (
	"encoding/json"
	"slices"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/samber/lo"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/acpupdate"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

// sessionMode is one of ACP's session modes: troupe's approval modes, as
// acpupdate names them.
type sessionMode struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

func (c *conn) modes(s event.Settings) map[string]any {
	return map[string]any{"currentModeId": acpupdate.CurrentMode(s), "availableModes": availableModes()}
}

// availableModes are the modes a session may be set to.
func availableModes() []sessionMode {
	var avail []sessionMode
	for _, m := range event.ApprovalModes() {
		avail = append(avail, sessionMode{ID: m, Name: acpupdate.ModeNames[m]})
	}
	return avail
}

// configOptions are the session's mode and, when models are known, its
// model.
func (c *conn) configOptions(s event.Settings) []acpupdate.ConfigOption {
	return acpupdate.ConfigOptions(c.cfg.Models, s)
}

// model is the model a session runs on.
func (c *conn) model(s event.Settings) (sessions.Model, bool) {
	return acpupdate.Model(c.cfg.Models, s)
}

// findModel resolves a model a client names: provider/model, the id
// /v1/agents, /v1/config and REST entries advertise (Hydra's --model), or
// the model's id alone, on the session's provider first. Without a
// catalog any id is taken as is.
func (c *conn) findModel(s event.Settings, id string) (sessions.Model, bool) {
	if c.cfg.Models == nil {
		return sessions.Model{ID: id}, true
	}
	list := c.cfg.Models.List()
	i := slices.IndexFunc(list, func(m sessions.Model) bool { return m.Provider+"/"+m.ID == id })
	if i < 0 && s.Provider != nil {
		i = slices.IndexFunc(list, func(m sessions.Model) bool { return m.ID == id && m.Provider == *s.Provider })
	}
	if i < 0 {
		i = slices.IndexFunc(list, func(m sessions.Model) bool { return m.ID == id })
	}
	if i < 0 {
		return sessions.Model{}, false
	}
	return list[i], true
}

type setModeParams struct {
	SessionID string `json:"sessionId"`
	ModeID    string `json:"modeId"`
}

func (c *conn) setMode(ctx actor.Context, id, params json.RawMessage) {
	var p setModeParams
	if !c.decodeParams(ctx, id, params, &p) {
		return
	}
	a := c.attached(ctx, id, p.SessionID)
	if a == nil {
		return
	}
	if _, ok := acpupdate.ModeNames[p.ModeID]; !ok {
		c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: modeId must be one of default, auto_edit, yolo, not "+p.ModeID))
		return
	}
	c.change(ctx, id, a, event.Settings{ApprovalMode: &p.ModeID}, func() any { return map[string]any{} })
}

type setModelParams struct {
	SessionID string `json:"sessionId"`
	ModelID   string `json:"modelId"`
}

// setModel is the legacy session/set_model.
func (c *conn) setModel(ctx actor.Context, id, params json.RawMessage) {
	var p setModelParams
	if !c.decodeParams(ctx, id, params, &p) {
		return
	}
	a := c.attached(ctx, id, p.SessionID)
	if a == nil {
		return
	}
	set, ok := c.modelSettings(a, p.ModelID)
	if !ok {
		c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: unknown model "+p.ModelID))
		return
	}
	c.change(ctx, id, a, set, func() any { return map[string]any{} })
}

func (c *conn) modelSettings(a *attachment, modelID string) (event.Settings, bool) {
	if ext := lo.FromPtr(a.view.Settings.Agent); ext != "" && ext != agentID {
		return agentModelChange(a.view.Settings, modelID)
	}
	return c.modelChange(a.view.Settings, modelID)
}

// agentModelChange is the settings that put a session on an external
// agent on the agent's model id: one it advertised, or any while it has
// advertised none (the agent, told before its next prompt, says whether
// it takes it).
func agentModelChange(s event.Settings, modelID string) (event.Settings, bool) {
	if modelID == "" {
		return event.Settings{}, false
	}
	if am := s.AgentModels; am != nil && len(am.Available) > 0 &&
		!slices.ContainsFunc(am.Available, func(m event.AgentModel) bool { return m.ID == modelID }) {
		return event.Settings{}, false
	}
	return event.Settings{AgentModel: &modelID}, true
}

// modelChange is the settings that put a session with settings s on the
// model a client names (findModel).
func (c *conn) modelChange(s event.Settings, modelID string) (event.Settings, bool) {
	m, ok := c.findModel(s, modelID)
	if !ok || modelID == "" {
		return event.Settings{}, false
	}
	set := event.Settings{Model: &m.ID}
	if m.Provider != "" {
		set.Provider = &m.Provider
	}
	return set, true
}

type setConfigParams struct {
	SessionID string `json:"sessionId"`
	ConfigID  string `json:"configId"`
	Value     string `json:"value"`
}

func (c *conn) setConfigOption(ctx actor.Context, id, params json.RawMessage) {
	var p setConfigParams
	if !c.decodeParams(ctx, id, params, &p) {
		return
	}
	a := c.attached(ctx, id, p.SessionID)
	if a == nil {
		return
	}
	var set event.Settings
	switch p.ConfigID {
	case "mode":
		if _, ok := acpupdate.ModeNames[p.Value]; !ok {
			c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: mode must be one of default, auto_edit, yolo, not "+p.Value))
			return
		}
		set.ApprovalMode = &p.Value
	case "model":
		var ok bool
		ext := lo.FromPtr(a.view.Settings.Agent)
		if set, ok = c.modelSettings(a, p.Value); !ok || (c.cfg.Models == nil && (ext == "" || ext == agentID)) {
			c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: unknown model "+p.Value))
			return
		}
	default:
		c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: unknown configId "+p.ConfigID))
		return
	}
	// The answer is the full set after the change, as the fold will have
	// it once the event is in.
	c.change(ctx, id, a, set, func() any {
		return map[string]any{"configOptions": c.configOptions(a.view.Settings.Merge(set))}
	})
}

// change records a settings change; the update it causes is projected
// from the event, and result answers the request once it is durable.
func (c *conn) change(ctx actor.Context, id json.RawMessage, a *attachment, set event.Settings, result func() any) {
	a.wake(c, ctx)
	c.async(ctx).SetSettings(a.id, set, func(seq int64, err error) {
		if err != nil {
			c.answerErr(ctx, id, a.id, err)
			return
		}
		if id != nil {
			// After the update the change causes: the answer waits for
			// the view to have its event.
			a.after(c, ctx, seq, func() { c.reply(ctx, id, result()) })
		}
	})
}

// agentsList lists troupe's own agent and the catalogue's, with their
// install state, in the shape GET /v1/agents has.
func (c *conn) agentsList(ctx actor.Context, id, _ json.RawMessage) {
	if id == nil {
		return
	}
	own := map[string]any{
		"id": agentID, "name": "troupe", "version": c.cfg.Version,
		"description": "troupe's built-in coding agent", "distributions": []string{"builtin"}, "installed": "yes",
	}
	if c.cfg.Agents == nil {
		c.reply(ctx, id, map[string]any{"version": c.cfg.Version, "fetchedAt": nil, "agents": []map[string]any{own}})
		return
	}
	l := c.cfg.Agents.Listing()
	agents := []any{own}
	for _, e := range l.Agents {
		if e.ID != agentID { // the built-in agent is not shadowed
			agents = append(agents, e)
		}
	}
	version := c.cfg.Version // without a registry document, troupe's own
	if l.FetchedAt != nil {
		version = l.Version
	}
	c.reply(ctx, id, map[string]any{"version": version, "fetchedAt": l.FetchedAt, "agents": agents})
}
