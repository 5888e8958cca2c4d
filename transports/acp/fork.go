package acp

import (
	"cmp"
	"encoding/json"
	"strings"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/samber/lo"
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
	Title     string `json:"title"` // names the fork; empty, it has none of its own
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
	if p.AgentID != "" && p.AgentID != agentID && (c.cfg.AgentKnown == nil || !c.cfg.AgentKnown(p.AgentID)) {
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
	set.UpstreamSessionID = nil // the fork's agent opens its own (sessions.Client.Fork)
	if p.AgentID != "" {
		set.Agent = &p.AgentID // the fork's own agent, the catalogue's (or troupe's)
	}
	set.Title = nil
	req := sessions.ForkRequest{Parent: a.id, Seq: seq, Entry: at,
		Session: event.CreatedPayload{Cwd: p.Cwd, Title: strings.TrimSpace(p.Title), Settings: set, OriginTransport: c.cfg.Transport, OriginClient: c.client.Name}}
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
		"agentId": cmp.Or(lo.FromPtr(set.Agent), agentID), "cwd": cwd, "currentMode": acpupdate.CurrentMode(set),
		"availableModes": availableModes(), "availableCommands": c.availableCommands(),
		"forkedFromSessionId": from, "forkedFromMessageId": at}
	if set.Model != nil {
		m["currentModel"] = *set.Model
	}
	return m
}

type specForkParams struct {
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
}

// sessionForkSpec is ACP's session/fork (the draft RFD, as Hydra serves
// it): the source, attached here or not, forks at its latest ended turn
// (at its start when none ended), and this connection is attached to
// the fork with its history replayed, answered as session/load is.
// mcpServers, which the RFD allows, is not taken: the fork keeps its
// source's.
func (c *conn) sessionForkSpec(ctx actor.Context, id, params json.RawMessage) {
	var p specForkParams
	if !c.decodeParams(ctx, id, params, &p) || !c.requireSession(ctx, id, p.SessionID) {
		return
	}
	if p.Cwd != "" {
		cwd, err := workdir.Cwd(p.Cwd)
		if err != nil {
			c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: "+err.Error()))
			return
		}
		p.Cwd = cwd
	}
	c.async(ctx).Meta(p.SessionID, func(src sessions.Meta, err error) {
		if err != nil {
			c.answerErr(ctx, id, p.SessionID, err)
			return
		}
		c.async(ctx).ForkPoint(p.SessionID, "", func(at sessions.ForkPoint, err error) {
			if err != nil {
				c.answerErr(ctx, id, p.SessionID, err)
				return
			}
			cwd := p.Cwd
			if cwd == "" {
				cwd = src.Cwd
			}
			req := sessions.ForkRequest{Parent: p.SessionID, Seq: at.Seq, Entry: at.MessageID,
				Session: event.CreatedPayload{Cwd: cwd, Title: src.Title, OriginTransport: c.cfg.Transport, OriginClient: c.client.Name}}
			c.async(ctx).Fork(req, func(newID string, err error) {
				if err != nil {
					c.answerErr(ctx, id, p.SessionID, err)
					return
				}
				c.attach(ctx, newID, attachOptions{
					policy:  policyFull,
					refused: func(e *jsonrpc.Error) { c.fail(ctx, id, e) },
					answer: func(a *attachment, _ int, _ string) {
						c.reply(ctx, id, c.specResult(a, map[string]any{"sessionId": newID}))
					},
				})
			})
		})
	})
}
