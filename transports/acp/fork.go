package acp

import (
	"encoding/json"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/workdir"
	"github.com/troupehq/troupe/transports/acpupdate"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

type forkParams struct {
	SessionID string `json:"sessionId"`
	ForkAt    string `json:"forkAt"`
	Cwd       string `json:"cwd"`
	AgentID   string `json:"agentId"`
}

// sessionFork branches the session at a turn boundary: the new session
// holds the source's log up to the end of the turn of prompt forkAt (by
// default the latest turn that ended). The source must be attached on
// this connection: the turn boundaries are its view's.
func (c *conn) sessionFork(ctx actor.Context, id, params json.RawMessage) {
	var p forkParams
	if !c.decodeParams(ctx, id, params, &p) {
		return
	}
	a := c.attached(ctx, id, p.SessionID)
	if a == nil {
		return
	}
	if p.AgentID != "" && p.AgentID != agentID {
		c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: agent "+p.AgentID+" is not installed: troupe runs its own agent, "+agentID))
		return
	}
	if p.Cwd == "" {
		p.Cwd = a.view.Cwd
	} else if cwd, err := workdir.Cwd(p.Cwd); err != nil {
		c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: "+err.Error()))
		return
	} else {
		p.Cwd = cwd
	}
	at, seq := p.ForkAt, int64(0)
	if at == "" {
		at, seq = a.lastTurn, a.turnEnds[a.lastTurn]
	} else {
		seq = a.turnEnds[at]
	}
	if seq == 0 {
		c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: no ended turn to fork at"+quoted(p.ForkAt)))
		return
	}
	set := a.view.Settings
	set.Title = nil
	req := sessions.ForkRequest{Parent: a.id, Seq: seq, Entry: at,
		Session: event.CreatedPayload{Cwd: p.Cwd, Settings: set, OriginTransport: c.cfg.Transport, OriginClient: c.client.Name}}
	c.async(ctx).Fork(req, func(newID string, err error) {
		if err != nil {
			c.answerErr(ctx, id, a.id, err)
			return
		}
		c.reply(ctx, id, map[string]any{"sessionId": newID, "forkedFromSessionId": a.id, "forkedFromMessageId": at,
			"modes": c.modes(set), "configOptions": c.configOptions(set),
			"_meta": map[string]any{"hydra-acp": c.forkMeta(set, p.Cwd, a.id, at)}})
	})
}

func quoted(s string) string {
	if s == "" {
		return ""
	}
	return " " + s
}

// forkMeta is a fork's session info, as an attach answer's: the fork is
// cold until attached, and has what its source had.
func (c *conn) forkMeta(set event.Settings, cwd, from, at string) map[string]any {
	m := map[string]any{"status": "cold", "busy": false, "awaitingInput": false, "attachedClients": 0,
		"agentId": agentID, "cwd": cwd, "currentMode": acpupdate.CurrentMode(set),
		"availableModes": availableModes(), "availableCommands": c.availableCommands(),
		"forkedFromSessionId": from, "forkedFromMessageId": at}
	if set.Model != nil {
		m["currentModel"] = *set.Model
	}
	return m
}
