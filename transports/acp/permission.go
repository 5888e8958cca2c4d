package acp

import (
	"encoding/json"
	"strings"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/acp/pipeline"
	"github.com/troupehq/troupe/transports/acpupdate"
	"github.com/troupehq/troupe/transports/jsonrpc"
	"github.com/troupehq/troupe/transports/projection"
)

// outgoing is a request sent to the client, waiting for its answer.
type outgoing struct {
	session    string
	toolCallID string
	options    []event.PermissionOption
	// reply, when set, is a chain run waiting for a transformer's answer:
	// the answer goes to it as it is.
	reply *actor.PID
	step  int
}

type permissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
}

type permissionParams struct {
	SessionID string              `json:"sessionId"`
	ToolCall  *acpupdate.ToolCall `json:"toolCall"`
	Options   []permissionOption  `json:"options"`
}

// askPermission sends this client session/request_permission for call;
// every attached client is asked, and the first answer decides.
func (a *attachment) askPermission(c *conn, ctx actor.Context, call *projection.ToolCall) {
	if call == nil || call.Permission == nil || call.Permission.Resolved || a.readonly {
		return
	}
	if _, ok := a.asked[call.ID]; ok {
		return
	}
	if c.cfg.Pipeline.Held(a.id, call.ID) {
		return // the session's chain decides first (link.permission)
	}
	tc := acpupdate.ToolState(call)
	tc.SessionUpdate = ""
	opts := make([]permissionOption, len(call.Permission.Options))
	for i, o := range call.Permission.Options {
		opts[i] = permissionOption{OptionID: o.OptionID, Name: o.Name, Kind: o.Kind}
	}
	c.ask(ctx, "session/request_permission", permissionParams{SessionID: a.id, ToolCall: tc, Options: opts},
		outgoing{session: a.id, toolCallID: call.ID, options: call.Permission.Options})
	a.asked[call.ID] = c.nextReq
}

// reissue asks this client the permission requests still open, as a
// client attaching late must be asked.
func (a *attachment) reissue(c *conn, ctx actor.Context) {
	for _, r := range a.view.Runs {
		for _, call := range r.Calls {
			if call.State == projection.CallAwaiting {
				a.askPermission(c, ctx, call)
			}
		}
	}
}

// resolved: the first answer won. The clients that did not give it are
// told permission_resolved; a request still open here is forgotten.
func (a *attachment) resolved(c *conn, ctx actor.Context, p *event.PermissionResolvedPayload, live bool, out *eventUpdates) {
	if req, ok := a.asked[p.ToolCallID]; ok {
		delete(c.outgoing, req)
		delete(a.asked, p.ToolCallID)
	}
	// The client that answered is not told its own answer.
	out.add(acpupdate.Resolved(p), !live || !a.decided[p.ToolCallID])
	a.show(c, ctx, out)
	delete(a.decided, p.ToolCallID)
	delete(a.raised, p.ToolCallID)
	if live {
		a.attention(c, ctx)
	}
}

type permissionAnswer struct {
	Outcome struct {
		Outcome  string `json:"outcome"` // selected | cancelled
		OptionID string `json:"optionId"`
	} `json:"outcome"`
}

// answered takes the client's answer to session/request_permission. A
// MethodNotFound error is an abstention; any other error, or cancelled,
// denies.
func (o outgoing) answered(c *conn, ctx actor.Context, m jsonrpc.Message) {
	if o.reply != nil {
		ctx.Send(o.reply, &pipeline.Answer{Step: o.step, M: m})
		return
	}
	a := c.att[o.session]
	if a == nil {
		return
	}
	delete(a.asked, o.toolCallID)
	d := sessions.Decision{ToolCallID: o.toolCallID, By: answeredBy(c.client.Name, a.clientID)}
	switch {
	case m.Error != nil && m.Error.Code == jsonrpc.CodeMethodNotFound:
		return
	case m.Error != nil:
		d.OptionID, d.Reason = "reject_once", "the client answered an error: "+m.Error.Message
	default:
		var ans permissionAnswer
		if json.Unmarshal(m.Result, &ans) != nil || ans.Outcome.Outcome != "selected" {
			d.OptionID, d.Reason = "reject_once", "cancelled by the client"
			break
		}
		kind, ok := optionKind(o.options, ans.Outcome.OptionID)
		if !ok {
			d.OptionID, d.Reason = "reject_once", "unknown option "+ans.Outcome.OptionID
			break
		}
		d.OptionID = ans.Outcome.OptionID
		d.Allow = strings.HasPrefix(kind, "allow")
		d.Always = kind == "allow_always"
	}
	a.decided[o.toolCallID] = true
	c.async(ctx).Decide(a.id, d, func(err error) {
		if err != nil {
			// Another client's answer came first: its decision stands.
			delete(a.decided, o.toolCallID)
			c.log(ctx).Debug("permission answer not taken", "session", a.id, "call", o.toolCallID, "error", err)
		}
	})
}

func optionKind(opts []event.PermissionOption, id string) (string, bool) {
	for _, o := range opts {
		if o.OptionID == id {
			return o.Kind, true
		}
	}
	return "", false
}

type attentionFlag struct {
	Source   string `json:"source"`
	Reason   string `json:"reason"`
	RaisedAt int64  `json:"raisedAt"`
	Payload  any    `json:"payload"`
}

type attentionParams struct {
	SessionID string          `json:"sessionId"`
	Flags     []attentionFlag `json:"flags"`
}

// awaitingCalls are the calls waiting for a decision.
func awaitingCalls(v *projection.View) []*projection.ToolCall {
	var out []*projection.ToolCall
	for _, r := range v.Runs {
		for _, call := range r.Calls {
			if call.State == projection.CallAwaiting {
				out = append(out, call)
			}
		}
	}
	return out
}

// attention sends hydra-acp/session/attention_updated when the flags
// (raised ones and open permission requests) may have changed since this
// client was last told: whenever any is raised, or the last went.
func (a *attachment) attention(c *conn, ctx actor.Context) {
	calls := awaitingCalls(a.view)
	awaiting := len(calls) > 0 || len(a.flags) > 0
	if !awaiting && !a.awaiting {
		return
	}
	a.awaiting = awaiting
	flags := make([]attentionFlag, 0, len(a.flags)+len(calls))
	for _, f := range a.flags {
		flags = append(flags, flagOf(f))
	}
	for _, call := range calls {
		flags = append(flags, attentionFlag{Source: "daemon", Reason: "permission", RaisedAt: a.raised[call.ID],
			Payload: map[string]any{"toolCallId": call.ID, "title": call.Name}})
	}
	c.notify(ctx, "hydra-acp/session/attention_updated", attentionParams{SessionID: a.id, Flags: flags})
}

// flagOf shows a raised flag; an absent payload shows as {}.
func flagOf(f event.AttentionFlag) attentionFlag {
	var payload any = map[string]any{}
	if len(f.Payload) > 0 {
		payload = f.Payload
	}
	return attentionFlag{Source: f.Source, Reason: f.Reason, RaisedAt: f.RaisedAt, Payload: payload}
}

// awaitingInput: any flag raised or permission request open.
func (a *attachment) awaitingInput() bool { return len(a.flags) > 0 || len(awaitingCalls(a.view)) > 0 }

// answeredBy is who a decision is recorded as: the name the client gave
// in initialize's clientInfo, which the other clients show ("answered by
// zed"), or its attachment's id when it gave none.
func answeredBy(name, clientID string) string {
	if name = strings.TrimSpace(name); name != "" {
		return name
	}
	return clientID
}
