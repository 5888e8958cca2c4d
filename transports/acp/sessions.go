package acp

import (
	"cmp"
	"encoding/json"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/samber/lo"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/workdir"
	"github.com/troupehq/troupe/transports/acpupdate"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

// agentID is the one agent troupe runs: its own engine.
const agentID = "troupe"

type hydraMeta struct {
	AgentID string `json:"agentId"`
	// AgentArgs are appended to the agent's own arguments, never a
	// command.
	AgentArgs   []string `json:"agentArgs"`
	Title       string   `json:"title"`
	Model       string   `json:"model"`
	Interactive *bool    `json:"interactive"`
	MCPStdin    bool     `json:"mcpStdin"`
	// Transformers is the session's chain; nil: the daemon's default.
	Transformers []string `json:"transformers"`
	// session/attach's own
	Readonly   bool    `json:"readonly"`
	ReplayMode string  `json:"replayMode"`
	DripSpeed  float64 `json:"dripSpeed"`
}

type metaParams struct {
	Hydra hydraMeta `json:"hydra-acp"`
}

type newParams struct {
	Cwd        string          `json:"cwd"`
	MCPServers json.RawMessage `json:"mcpServers"`
	Meta       metaParams      `json:"_meta"`
}

func (c *conn) sessionNew(ctx actor.Context, id, params json.RawMessage) {
	var p newParams
	if !c.decodeParams(ctx, id, params, &p) {
		return
	}
	cwd, err := workdir.Cwd(p.Cwd)
	if err != nil {
		c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: "+err.Error()))
		return
	}
	settings, ok := c.agentSettings(ctx, id, c.cfg.newSettings(), p.Meta.Hydra.AgentID, p.Meta.Hydra.AgentArgs)
	if !ok {
		return
	}
	if m := p.Meta.Hydra.Model; m != "" {
		set, ok := c.modelChange(settings, m)
		if !ok {
			c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: unknown model "+m))
			return
		}
		settings = settings.Merge(set)
	}
	created := event.CreatedPayload{Cwd: cwd, Title: p.Meta.Hydra.Title, Settings: settings,
		OriginTransport: c.cfg.Transport, OriginClient: c.client.Name, Interactive: p.Meta.Hydra.Interactive}
	sid := sessions.NewID()
	servers, err := withInjected(p.MCPServers, c.cfg.InjectMCP, sid, p.Meta.Hydra.MCPStdin)
	if err != nil {
		c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: "+err.Error()))
		return
	}
	servers = c.cfg.Pipeline.MCPServersFor(sid, servers)
	if len(servers) > 0 && !jsonrpc.IsNull(servers) && string(servers) != "[]" {
		created.MCPServers = servers
	}
	created.Transformers = c.cfg.Pipeline.ResolveChain(p.Meta.Hydra.Transformers)
	c.async(ctx).Create(sid, created, func(err error) {
		if err != nil {
			c.answerErr(ctx, id, sid, err)
			return
		}
		c.startAttachment(ctx, sid, attachOptions{
			policy:  policyNone,
			refused: func(e *jsonrpc.Error) { c.fail(ctx, id, e) },
			answer: func(a *attachment, _ int, _ string) {
				res := c.specResult(a, map[string]any{"sessionId": sid})
				if p.Meta.Hydra.MCPStdin && c.cfg.InjectMCP != nil {
					res["_meta"].(map[string]any)["hydra-acp"].(map[string]any)["mcpStdin"] = true
				}
				// The chain and its link (with the gate) before the client
				// knows the session, so its first prompt's updates are gated.
				if len(created.Transformers) > 0 {
					c.cfg.Pipeline.RestoreChain(sid, created.Transformers)
					c.cfg.Pipeline.EnsureLink(ctx.ActorSystem(), c.cfg.Sessions, sid, 1)
				}
				c.reply(ctx, id, res)
				c.lifecycle(ctx, sid, "session.opened", map[string]any{}, "")
			},
		})
	})
}

// agentSettings are settings with the session's agent: troupe's own
// engine (no agent id, or troupe's), or an agent the catalogue knows; any
// other id is refused with -32005. The command is the catalogue's, looked
// up when the agent starts; args are only ever arguments.
func (c *conn) agentSettings(ctx actor.Context, id json.RawMessage, set event.Settings, agent string, args []string) (event.Settings, bool) {
	if agent == "" || agent == agentID {
		return set, true
	}
	if c.cfg.AgentKnown == nil || !c.cfg.AgentKnown(agent) {
		c.fail(ctx, id, jsonrpc.NewError(CodeAgentNotInstalled, "agent "+agent+" is not installed: troupe runs its own agent, "+agentID))
		return set, false
	}
	set.Agent = &agent
	if len(args) > 0 {
		set.AgentArgs = args
	}
	return set, true
}

type loadParams struct {
	SessionID string `json:"sessionId"`
}

// sessionLoad replays the whole conversation, then answers (ACP: load
// MUST replay); sessionResume replays nothing but what waits on the
// client (open permission requests).
func (c *conn) sessionLoad(ctx actor.Context, id, params json.RawMessage) {
	c.loadOrResume(ctx, id, params, policyFull)
}

func (c *conn) sessionResume(ctx actor.Context, id, params json.RawMessage) {
	c.loadOrResume(ctx, id, params, policyPendingOnly)
}

func (c *conn) loadOrResume(ctx actor.Context, id, params json.RawMessage, policy string) {
	var p loadParams
	if !c.decodeParams(ctx, id, params, &p) {
		return
	}
	if !c.requireSession(ctx, id, p.SessionID) {
		return
	}
	c.attach(ctx, p.SessionID, attachOptions{
		policy:  policy,
		refused: func(e *jsonrpc.Error) { c.fail(ctx, id, e) },
		answer: func(a *attachment, _ int, _ string) {
			c.reply(ctx, id, c.specResult(a, map[string]any{}))
		},
	})
}

type attachParams struct {
	SessionID      string `json:"sessionId"`
	HistoryPolicy  string `json:"historyPolicy"`
	AfterMessageID string `json:"afterMessageId"`
	ClientID       string `json:"clientId"`
	ClientInfo     *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"clientInfo"`
	Meta metaParams `json:"_meta"`
}

func (c *conn) sessionAttach(ctx actor.Context, id, params json.RawMessage) {
	var p attachParams
	if !c.decodeParams(ctx, id, params, &p) {
		return
	}
	if !c.requireSession(ctx, id, p.SessionID) {
		return
	}
	switch p.HistoryPolicy {
	case "":
		p.HistoryPolicy = policyFull
	case policyFull, policyPendingOnly, policyNone:
	case policyAfter:
		if p.AfterMessageID == "" {
			c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: historyPolicy after_message needs afterMessageId"))
			return
		}
	default:
		c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: historyPolicy must be full, pending_only, none or after_message, not "+p.HistoryPolicy))
		return
	}
	h := p.Meta.Hydra
	switch h.ReplayMode {
	case "", "instant", "drip":
	default:
		c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: replayMode must be instant or drip, not "+h.ReplayMode))
		return
	}
	info := c.client
	if p.ClientInfo != nil {
		info = ClientInfo{Name: p.ClientInfo.Name, Version: p.ClientInfo.Version}
	}
	speed := h.DripSpeed
	if speed <= 0 {
		speed = 1
	}
	c.attach(ctx, p.SessionID, attachOptions{
		policy: p.HistoryPolicy, anchor: p.AfterMessageID, clientID: p.ClientID, readonly: h.Readonly, info: info,
		drip: h.ReplayMode == "drip", speed: speed,
		refused: func(e *jsonrpc.Error) { c.fail(ctx, id, e) },
		answer: func(a *attachment, n int, applied string) {
			res := map[string]any{
				"sessionId": a.id, "clientId": a.clientID, "connectedClients": c.cfg.Hub.Clients(a.id),
				"historyPolicy": applied, "replayed": n, "modes": c.modes(a.view.Settings),
				"configOptions": c.configOptions(a.view.Settings),
				"_meta":         map[string]any{"hydra-acp": c.sessionMeta(a)},
			}
			if applied != p.HistoryPolicy {
				res["historyPolicyNote"] = "afterMessageId " + p.AfterMessageID + " is not in this session's history: replayed in full"
			}
			c.reply(ctx, id, res)
		},
	})
}

func (c *conn) sessionDetach(ctx actor.Context, id, params json.RawMessage) {
	var p loadParams
	if !c.decodeParams(ctx, id, params, &p) {
		return
	}
	a := c.attached(ctx, id, p.SessionID)
	if a == nil {
		return
	}
	a.leave(c)
	delete(c.att, a.id)
	c.reply(ctx, id, map[string]any{"sessionId": a.id, "_meta": map[string]any{"hydra-acp": map[string]any{"detachStatus": "detached"}}})
}

type listParams struct {
	Cwd    string `json:"cwd"`
	Cursor string `json:"cursor"`
}

type listEntry struct {
	SessionID string         `json:"sessionId"`
	Cwd       string         `json:"cwd"`
	Title     string         `json:"title,omitempty"`
	UpdatedAt string         `json:"updatedAt,omitempty"`
	Meta      map[string]any `json:"_meta"`
}

// listPageSize is how many sessions one session/list answer holds; the
// next are a nextCursor away, as the ACP session list protocol pages
// them, so that an answer's cost does not grow with the store.
const listPageSize = 1000

func (c *conn) sessionList(ctx actor.Context, id, params json.RawMessage) {
	var p listParams
	if !c.decodeParams(ctx, id, params, &p) {
		return
	}
	q := sessions.ListQuery{Cwd: p.Cwd, Limit: listPageSize}
	if p.Cursor != "" {
		after, err := sessions.DecodeCursor(p.Cursor)
		if err != nil {
			c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "cursor: "+err.Error()))
			return
		}
		q.After = &after
	}
	c.async(ctx).ListPage(q, func(list []sessions.Meta, next string, err error) {
		if err != nil {
			c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInternal, "list sessions: "+err.Error()))
			return
		}
		answer := func(entries []listEntry) {
			res := map[string]any{"sessions": entries}
			if next != "" {
				res["nextCursor"] = next
			}
			c.reply(ctx, id, res)
		}
		if len(list) == 0 {
			answer([]listEntry{})
			return
		}
		ids := lo.Map(list, func(m sessions.Meta, _ int) string { return m.ID })
		c.async(ctx).AwaitingInput(ids, func(awaiting map[string]bool, err error) {
			if err != nil {
				c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInternal, "list sessions: "+err.Error()))
				return
			}
			c.async(ctx).Running(func(running map[string]bool, err error) {
				if err != nil {
					c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInternal, "list sessions: "+err.Error()))
					return
				}
				c.async(ctx).Busy(func(busy map[string]bool, err error) {
					if err != nil {
						c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInternal, "list sessions: "+err.Error()))
						return
					}
					answer(c.listEntries(list, awaiting, running, busy))
				})
			})
		})
	})
}

// listEntries are session/list's entries; awaiting is from the log, or
// from the view of a session attached here; running is the sessions a
// live process hosts (the store's status still says live for one whose
// process was killed); busy is from the actors of the sessions this
// daemon hosts, or the view of a session attached here.
func (c *conn) listEntries(list []sessions.Meta, awaiting, running, busy map[string]bool) []listEntry {
	out := make([]listEntry, 0, len(list))
	for _, m := range list {
		// warm|cold, as Hydra's daemon and clients say it (the reference
		// says live; see ARCHITECTURE.md, Hydra clients over the reference).
		status := "cold"
		if running[m.ID] {
			status = "warm"
		}
		h := map[string]any{"attachedClients": len(c.cfg.Hub.Clients(m.ID)), "status": status,
			"busy": busy[m.ID], "awaitingInput": awaiting[m.ID], "agentId": cmp.Or(m.Agent, agentID)}
		if a := c.att[m.ID]; a != nil {
			h["busy"], h["awaitingInput"] = len(a.view.Runs) > 0, a.awaitingInput()
		}
		if m.Model != "" {
			h["currentModel"] = m.Model
		}
		if m.Interactive != nil {
			h["interactive"] = *m.Interactive
		}
		if m.ChildOf != "" {
			h["parentSessionId"] = m.ChildOf
		}
		out = append(out, listEntry{SessionID: m.ID, Cwd: m.Cwd, Title: m.Title,
			UpdatedAt: m.UpdatedAt.UTC().Format(time.RFC3339Nano), Meta: map[string]any{"hydra-acp": h}})
	}
	return out
}

// specResult is a core ACP method's result: its spec fields, and
// hydra's under _meta, clientId included.
func (c *conn) specResult(a *attachment, res map[string]any) map[string]any {
	res["modes"] = c.modes(a.view.Settings)
	res["configOptions"] = c.configOptions(a.view.Settings)
	meta := c.sessionMeta(a)
	meta["clientId"] = a.clientID
	res["_meta"] = map[string]any{"hydra-acp": meta}
	return res
}

// sessionMeta is the session info every attach-like answer carries.
func (c *conn) sessionMeta(a *attachment) map[string]any {
	v := a.view
	status := "warm"
	if a.tail != nil && a.tail.cold {
		status = "cold" // watched from the store, not started
	}
	m := map[string]any{
		"status": status, "busy": len(v.Runs) > 0, "awaitingInput": a.awaitingInput(),
		"attachedClients": len(c.cfg.Hub.Clients(a.id)), "agentId": cmp.Or(lo.FromPtr(v.Settings.Agent), agentID), "cwd": v.Cwd,
		"currentMode": acpupdate.CurrentMode(v.Settings),
		// Hydra's clients read the palettes here: Shift-Tab cycles
		// availableModes, slash completion lists availableCommands.
		"availableModes": availableModes(), "availableCommands": c.availableCommands(),
		// Hydra's shim re-attaches, after a daemon restart, only the
		// sessions whose answer named their agent's own session: troupe is
		// the agent, so that is the session itself; an external agent's is
		// the session it gave (once its first turn started it).
		"upstreamSessionId": cmp.Or(lo.FromPtr(v.Settings.UpstreamSessionID), a.id),
	}
	a.info.addTo(m)
	if v.Title != "" {
		m["title"] = v.Title
	}
	if v.ChildOf != "" {
		m["parentSessionId"] = v.ChildOf
	}
	if v.Settings.Model != nil {
		m["currentModel"] = *v.Settings.Model
	}
	if v.Pending.Len() > 0 {
		q := make([]map[string]any, 0, v.Pending.Len())
		for _, p := range v.Pending.Entries() {
			q = append(q, map[string]any{"messageId": p.MessageID, "prompt": acpupdate.Blocks(p.Content), "originator": c.originatorOf(a.id, p.Client)})
		}
		m["queue"] = q
	}
	return m
}
