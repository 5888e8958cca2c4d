package acp

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/acp/pipeline"
	"github.com/troupehq/troupe/transports/acpupdate"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

type promptResult struct {
	StopReason string `json:"stopReason"`
}

type queuePosition struct {
	Place string // head | tail
	After string
}

func (q *queuePosition) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		if s != "head" && s != "tail" {
			return errors.New(`queuePosition must be "head", "tail" or {"afterMessageId": ...}`)
		}
		q.Place = s
		return nil
	}
	var o struct {
		AfterMessageID string `json:"afterMessageId"`
	}
	if json.Unmarshal(b, &o) != nil || o.AfterMessageID == "" {
		return errors.New(`queuePosition must be "head", "tail" or {"afterMessageId": ...}`)
	}
	q.Place, q.After = "after", o.AfterMessageID
	return nil
}

type promptParams struct {
	SessionID string                   `json:"sessionId"`
	Prompt    []acpupdate.ContentBlock `json:"prompt"`
	Meta      struct {
		Hydra struct {
			QueuePosition *queuePosition `json:"queuePosition"`
			// Ancillary marks machine traffic (Hydra's cat, a TUI's /btw
			// side question, a transformer's worker prompts): it neither
			// titles the session nor makes it interactive.
			Ancillary bool `json:"ancillary"`
		} `json:"hydra-acp"`
	} `json:"_meta"`
}

// blocks turns an ACP prompt into the log's blocks; resources are kept
// by their text or their uri.
func blocks(p []acpupdate.ContentBlock) ([]event.Block, *jsonrpc.Error) {
	if len(p) == 0 {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: prompt must have at least one content block")
	}
	out := make([]event.Block, 0, len(p))
	for _, b := range p {
		switch b.Type {
		case "text":
			out = append(out, event.Block{Type: "text", Text: b.Text})
		case "image":
			out = append(out, event.Block{Type: "image", Data: b.Data, MimeType: b.MimeType, URI: b.URI})
		case "resource_link", "resource":
			out = append(out, event.Block{Type: "resource", URI: b.URI, MimeType: b.MimeType, Text: b.Text})
		default:
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: unsupported content block type "+b.Type)
		}
	}
	return out, nil
}

// sessionPrompt queues the prompt in the session's durable queue; the
// answer comes with the run's end (runEnded), or its cancel while queued.
func (c *conn) sessionPrompt(ctx actor.Context, id, params json.RawMessage) {
	var p promptParams
	if !c.decodeParams(ctx, id, params, &p) {
		return
	}
	a := c.attached(ctx, id, p.SessionID)
	if a == nil {
		return
	}
	if _, rerr := blocks(p.Prompt); rerr != nil {
		c.fail(ctx, id, rerr)
		return
	}
	names := c.cfg.Pipeline.Chain(a.id, "request:session/prompt")
	if names == nil {
		c.queuePrompt(ctx, id, a, p)
		return
	}
	a.chained = append(a.chained, func() { c.chainPrompt(ctx, id, a, params, names) })
	if len(a.chained) == 1 {
		a.chained[0]()
	}
}

// chainPrompt runs a prompt through the chain, then the next one waiting.
func (c *conn) chainPrompt(ctx actor.Context, id json.RawMessage, a *attachment, params json.RawMessage, names []string) {
	c.runChain(ctx, pipeline.Spec{Session: a.id, Method: "session/prompt", Direction: "client→agent", Envelope: params, Names: names},
		func(d pipeline.Done) {
			defer func() {
				a.chained = a.chained[1:]
				if len(a.chained) > 0 && c.att[a.id] == a {
					a.chained[0]()
				}
			}()
			switch {
			case c.att[a.id] != a:
				// Detached meanwhile: nobody is there to answer.
			case d.Err != nil:
				c.fail(ctx, id, d.Err)
			case d.Action == "stop":
				c.stopPrompt(ctx, id, d.Envelope)
			default:
				var np promptParams
				if err := json.Unmarshal(d.Envelope, &np); err != nil {
					c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: a transformer's rewrite: "+err.Error()))
					return
				}
				np.SessionID = a.id
				c.queuePrompt(ctx, id, a, np)
			}
		})
}

// stopPrompt answers a prompt a transformer short-circuited with its
// payload (by default the turn ended).
func (c *conn) stopPrompt(ctx actor.Context, id json.RawMessage, payload json.RawMessage) {
	if id == nil {
		return
	}
	if len(payload) == 0 || jsonrpc.IsNull(payload) {
		c.reply(ctx, id, promptResult{StopReason: "end_turn"})
		return
	}
	c.reply(ctx, id, payload)
}

// queuePrompt puts the prompt in the session's queue.
func (c *conn) queuePrompt(ctx actor.Context, id json.RawMessage, a *attachment, p promptParams) {
	content, rerr := blocks(p.Prompt)
	if rerr != nil {
		c.fail(ctx, id, rerr)
		return
	}
	req := sessions.PromptRequest{MessageID: newID("msg-"), Content: content, Client: a.clientID, Ancillary: p.Meta.Hydra.Ancillary}
	if text, ok := pipeline.CommandText(p.Prompt); ok {
		c.cfg.Pipeline.QueuedCommand(a.id, req.MessageID, text)
	}
	if q := p.Meta.Hydra.QueuePosition; q != nil {
		req.Position, req.After = q.Place, q.After
	}
	if id != nil {
		// Known before the request goes: the run may start (and end)
		// before its answer is handled.
		a.prompts[req.MessageID] = id
	}
	a.wake(c, ctx)
	c.async(ctx).Prompt(a.id, req, func(_ sessions.PromptResult, err error) {
		if err == nil {
			return
		}
		if _, waiting := a.prompts[req.MessageID]; waiting {
			delete(a.prompts, req.MessageID)
			c.answerErr(ctx, id, a.id, err)
		}
	})
}

type cancelParams struct {
	SessionID string `json:"sessionId"`
}

// sessionCancel (a notification in ACP) cancels the running run; its
// sender's session/prompt answers cancelled. Queued prompts still run.
func (c *conn) sessionCancel(ctx actor.Context, id, params json.RawMessage) {
	var p cancelParams
	if !c.decodeParams(ctx, id, params, &p) {
		return
	}
	a := c.att[p.SessionID]
	if a == nil {
		if id != nil {
			c.fail(ctx, id, jsonrpc.NewError(CodeSessionNotFound, "session "+p.SessionID+" is not attached on this connection"))
		}
		return
	}
	names := c.cfg.Pipeline.Chain(a.id, "request:session/cancel")
	if names == nil {
		c.cancelRun(ctx, id, a)
		return
	}
	c.runChain(ctx, pipeline.Spec{Session: a.id, Method: "session/cancel", Direction: "client→agent", Envelope: params, Names: names},
		func(d pipeline.Done) {
			if d.Err == nil && d.Action == "continue" {
				c.cancelRun(ctx, id, a)
				return
			}
			if id != nil { // a transformer suppressed it
				c.reply(ctx, id, map[string]any{})
			}
		})
}

func (c *conn) cancelRun(ctx actor.Context, id json.RawMessage, a *attachment) {
	c.async(ctx).Cancel(a.id, "cancelled by client "+a.clientID, func(_ sessions.CancelResult, err error) {
		switch {
		case err != nil:
			c.answerErr(ctx, id, a.id, err)
		case id != nil:
			c.reply(ctx, id, map[string]any{})
		}
	})
}

type queueEditParams struct {
	SessionID         string                   `json:"sessionId"`
	MessageID         string                   `json:"messageId"`
	TargetMessageID   string                   `json:"targetMessageId"`
	Prompt            []acpupdate.ContentBlock `json:"prompt"`
	ReplaceQueue      bool                     `json:"replaceQueue"`
	OnTargetCompleted string                   `json:"onTargetCompleted"`
}

func (c *conn) queueEdit(ctx actor.Context, id, params json.RawMessage, target func(queueEditParams) string) (*attachment, queueEditParams, bool) {
	var p queueEditParams
	if !c.decodeParams(ctx, id, params, &p) {
		return nil, p, false
	}
	a := c.attached(ctx, id, p.SessionID)
	if a == nil {
		return nil, p, false
	}
	if target(p) == "" {
		c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: the prompt's message id is required"))
		return nil, p, false
	}
	a.wake(c, ctx)
	return a, p, true
}

func (c *conn) promptCancel(ctx actor.Context, id, params json.RawMessage) {
	a, p, ok := c.queueEdit(ctx, id, params, func(p queueEditParams) string { return p.MessageID })
	if !ok {
		return
	}
	c.async(ctx).QueueCancel(a.id, p.MessageID, func(r sessions.QueueResult, err error) {
		if err != nil {
			c.answerErr(ctx, id, a.id, err)
			return
		}
		if r.OK {
			// Also done on the event; this conn may be gone before it.
			c.cfg.Pipeline.QueueLeft(a.id, p.MessageID)
		}
		c.reply(ctx, id, map[string]any{"cancelled": r.OK, "reason": r.Reason})
	})
}

func (c *conn) promptUpdate(ctx actor.Context, id, params json.RawMessage) {
	a, p, ok := c.queueEdit(ctx, id, params, func(p queueEditParams) string { return p.MessageID })
	if !ok {
		return
	}
	content, rerr := blocks(p.Prompt)
	if rerr != nil {
		c.fail(ctx, id, rerr)
		return
	}
	c.async(ctx).QueueUpdate(a.id, p.MessageID, content, func(r sessions.QueueResult, err error) {
		if err != nil {
			c.answerErr(ctx, id, a.id, err)
			return
		}
		if r.OK {
			c.cfg.Pipeline.QueueEdited(a.id, p.MessageID, p.Prompt, false)
		}
		c.reply(ctx, id, map[string]any{"updated": r.OK, "reason": r.Reason})
	})
}

func (c *conn) promptAmend(ctx actor.Context, id, params json.RawMessage) {
	a, p, ok := c.queueEdit(ctx, id, params, func(p queueEditParams) string { return p.TargetMessageID })
	if !ok {
		return
	}
	content, rerr := blocks(p.Prompt)
	if rerr != nil {
		c.fail(ctx, id, rerr)
		return
	}
	switch p.OnTargetCompleted {
	case "", "reject", "send_anyway":
	default:
		c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: onTargetCompleted must be reject or send_anyway"))
		return
	}
	// A slash command the amend cancels is told why.
	c.cfg.Pipeline.MarkCommand(a.id, p.TargetMessageID, "amended")
	req := sessions.AmendRequest{TargetID: p.TargetMessageID, NewID: newID("msg-"), Content: content,
		ReplaceQueue: p.ReplaceQueue, OnTargetCompleted: p.OnTargetCompleted, Client: a.clientID}
	// The prompt the amend sends is this client's own, as a session/prompt
	// of its would be: the others get its prompt_received and
	// turn_complete, not this one (Hydra excludes the originator). Known
	// before the request goes: its run may start before the answer.
	// No session/prompt waits on it (nil): the amend's answer is the reply.
	a.prompts[req.NewID] = nil
	c.async(ctx).QueueAmend(a.id, req, func(r sessions.QueueResult, err error) {
		if err != nil || r.MessageID != req.NewID {
			delete(a.prompts, req.NewID)
		}
		if err != nil {
			c.answerErr(ctx, id, a.id, err)
			return
		}
		switch {
		case r.OK && r.MessageID == p.TargetMessageID:
			// The target was still queued: edited in place.
			c.cfg.Pipeline.QueueEdited(a.id, p.TargetMessageID, p.Prompt, false)
		case r.OK:
			c.cfg.Pipeline.CancelCommand(ctx.ActorSystem().Root, a.id, p.TargetMessageID, "amended")
		default:
			c.cfg.Pipeline.MarkCommand(a.id, p.TargetMessageID, "")
		}
		// A completed target's send_anyway sends the prompt, yet amended
		// nothing: amended false, as Hydra answers it, with the id sent.
		res := map[string]any{"amended": r.OK && r.Reason == "ok", "reason": r.Reason}
		if r.MessageID != "" {
			res["messageId"] = r.MessageID
		}
		c.reply(ctx, id, res)
	})
}

// The queue notifications, projected from the queue's events.

// originator is who sent a prompt, as Hydra names it: the client's id
// and the clientInfo it attached with.
type originator struct {
	ClientID string `json:"clientId"`
	Name     string `json:"name,omitempty"`
	Version  string `json:"version,omitempty"`
}

// originatorOf is client id of session sid, named by the clientInfo of
// its attachment; a client no longer attached is its id alone.
func (c *conn) originatorOf(sid, id string) originator {
	if c.cfg.Hub == nil {
		return originator{ClientID: id} // no hub (a lone connection): no names
	}
	for _, ci := range c.cfg.Hub.Clients(sid) {
		if ci.ClientID == id {
			return originator{ClientID: id, Name: ci.Name, Version: ci.Version}
		}
	}
	return originator{ClientID: id}
}

type queueAdded struct {
	SessionID  string                   `json:"sessionId"`
	MessageID  string                   `json:"messageId"`
	Originator originator               `json:"originator"`
	Prompt     []acpupdate.ContentBlock `json:"prompt"`
	Position   int                      `json:"position"`
	QueueDepth int                      `json:"queueDepth"`
	EnqueuedAt int64                    `json:"enqueuedAt"`
}

type queueUpdated struct {
	SessionID string                   `json:"sessionId"`
	MessageID string                   `json:"messageId"`
	Prompt    []acpupdate.ContentBlock `json:"prompt"`
}

type queueRemoved struct {
	SessionID string `json:"sessionId"`
	MessageID string `json:"messageId"`
	Reason    string `json:"reason"` // started | cancelled | abandoned
}

type promptAmended struct {
	SessionID          string                   `json:"sessionId"`
	CancelledMessageID string                   `json:"cancelledMessageId"`
	NewMessageID       string                   `json:"newMessageId"`
	Prompt             []acpupdate.ContentBlock `json:"prompt"`
	Originator         originator               `json:"originator"`
	AmendedAt          int64                    `json:"amendedAt"`
}

func (a *attachment) queued(c *conn, ctx actor.Context, p *event.PromptQueuedPayload, e event.Event) {
	if p.Delivery != event.DeliveryPrompt && p.Delivery != "" {
		return
	}
	pos := a.view.Pending.Index(p.MessageID)
	if pos < 0 {
		return
	}
	if len(a.view.Runs) > 0 {
		pos++ // behind the run in flight
	}
	c.notify(ctx, "hydra-acp/prompt_queue/added", queueAdded{SessionID: a.id, MessageID: p.MessageID,
		Originator: c.originatorOf(a.id, p.Client), Prompt: acpupdate.Blocks(p.Content), Position: pos,
		QueueDepth: a.view.Pending.Len(), EnqueuedAt: e.RecordedAt.UnixMilli()})
}

func (a *attachment) promptChanged(c *conn, ctx actor.Context, e event.Event, p *event.PromptChangedPayload) {
	switch e.Kind {
	case event.PromptUpdated:
		blocks := acpupdate.Blocks(p.Content)
		c.cfg.Pipeline.QueueEdited(a.id, p.MessageID, blocks, true)
		c.notify(ctx, "hydra-acp/prompt_queue/updated", queueUpdated{SessionID: a.id, MessageID: p.MessageID, Prompt: blocks})
	case event.PromptCancelled:
		c.cfg.Pipeline.QueueLeft(a.id, p.MessageID)
		c.notify(ctx, "hydra-acp/prompt_queue/removed", queueRemoved{SessionID: a.id, MessageID: p.MessageID, Reason: "cancelled"})
		if req, mine := a.prompts[p.MessageID]; mine {
			delete(a.prompts, p.MessageID)
			if req != nil {
				c.reply(ctx, req, promptResult{StopReason: "cancelled"})
			}
		}
	case event.PromptAmended:
		c.notify(ctx, "hydra-acp/prompt/amended", promptAmended{SessionID: a.id, CancelledMessageID: p.MessageID,
			NewMessageID: strings.TrimPrefix(p.Reason, "amended by "), Prompt: acpupdate.Blocks(p.Content),
			Originator: c.originatorOf(a.id, p.Client), AmendedAt: e.RecordedAt.UnixMilli()})
	}
}
