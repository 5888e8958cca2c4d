package cluster

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/sessions/cluster/clusterpb"
	"github.com/troupehq/troupe/actors/sessions/internal/queue"
	"github.com/troupehq/troupe/actors/sessions/internal/run"
	"github.com/troupehq/troupe/actors/sessions/internal/session"
	"github.com/troupehq/troupe/persistence/event"
)

// The facade's requests and replies are Go structs a session understands;
// these functions turn each into its protobuf message and back, one case
// per message, so that nothing crosses a member untyped.

func pidToPB(p *actor.PID) *clusterpb.Pid {
	if p == nil {
		return nil
	}
	return &clusterpb.Pid{Address: p.Address, Id: p.Id}
}

func pidFromPB(p *clusterpb.Pid) *actor.PID {
	if p == nil {
		return nil
	}
	return actor.NewPID(p.Address, p.Id)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		// The payloads are the event schema's plain structs.
		panic(fmt.Sprintf("cluster: marshal %T: %v", v, err))
	}
	return b
}

func fromJSON[T any](b []byte, what string) (T, error) {
	var v T
	if len(b) == 0 {
		return v, nil
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return v, fmt.Errorf("cluster: decode %s: %w", what, err)
	}
	return v, nil
}

// requestToPB is the protobuf form of a request to session id.
func requestToPB(id string, msg session.Request) (*clusterpb.Request, error) {
	r := &clusterpb.Request{SessionId: id}
	switch m := msg.(type) {
	case *session.Create:
		r.Body = &clusterpb.Request_Create{Create: &clusterpb.Create{CreatedJson: mustJSON(m.Created)}}
	case *session.Append:
		drafts := make([]*clusterpb.Draft, len(m.Events))
		for i, d := range m.Events {
			drafts[i] = &clusterpb.Draft{Kind: string(d.Kind), Payload: d.Payload}
		}
		r.Body = &clusterpb.Request_Append{Append: &clusterpb.Append{Events: drafts}}
	case *session.Subscribe:
		r.Body = &clusterpb.Request_Subscribe{Subscribe: &clusterpb.Subscribe{From: m.From, LiveOnly: m.LiveOnly, Weak: m.Weak, Target: pidToPB(m.Target)}}
	case *session.Unsubscribe:
		r.Body = &clusterpb.Request_Unsubscribe{Unsubscribe: &clusterpb.Unsubscribe{Subscription: pidToPB(m.Subscription)}}
	case *session.GetState:
		r.Body = &clusterpb.Request_GetState{GetState: &clusterpb.GetState{}}
	case *session.Prompt:
		r.Body = &clusterpb.Request_Prompt{Prompt: &clusterpb.Prompt{IdempotencyKey: m.MessageID, ContentJson: mustJSON(m.Content),
			Delivery: m.Delivery, Position: m.Position, After: m.After, Client: m.Client, Ancillary: m.Ancillary}}
	case *session.QueueOp:
		op, err := queueOpToPB(m.Op)
		if err != nil {
			return nil, err
		}
		r.Body = &clusterpb.Request_QueueOp{QueueOp: op}
	case *session.CancelRun:
		r.Body = &clusterpb.Request_CancelRun{CancelRun: &clusterpb.CancelRun{Reason: m.Reason}}
	case *session.Decide:
		d := m.Decide
		r.Body = &clusterpb.Request_Decide{Decide: &clusterpb.Decide{ToolCallId: d.ToolCallID, Allow: d.Allow, Always: d.Always, OptionId: d.OptionID, Reason: d.Reason, By: d.By}}
	case *session.AbortRetry:
		r.Body = &clusterpb.Request_AbortRetry{AbortRetry: &clusterpb.AbortRetry{}}
	case *session.ChangeSettings:
		r.Body = &clusterpb.Request_ChangeSettings{ChangeSettings: &clusterpb.ChangeSettings{SettingsJson: mustJSON(m.Settings)}}
	case *session.RecordBash:
		r.Body = &clusterpb.Request_RecordBash{RecordBash: &clusterpb.RecordBash{BashJson: mustJSON(m.Bash)}}
	case *session.Compact:
		r.Body = &clusterpb.Request_Compact{Compact: &clusterpb.Compact{Instructions: m.Instructions}}
	case *session.ImportHistory:
		r.Body = &clusterpb.Request_ImportHistory{ImportHistory: &clusterpb.ImportHistory{HistoryJson: mustJSON(m.History)}}
	case *session.SetAttention:
		r.Body = &clusterpb.Request_SetAttention{SetAttention: &clusterpb.SetAttention{Source: m.Source, Reason: m.Reason, Payload: m.Payload, Clear: m.Clear}}
	default:
		return nil, fmt.Errorf("cluster: no protobuf form for %T", msg)
	}
	return r, nil
}

func queueOpToPB(op any) (*clusterpb.QueueOp, error) {
	switch o := op.(type) {
	case *queue.CancelPrompt:
		return &clusterpb.QueueOp{Op: &clusterpb.QueueOp_Cancel{Cancel: &clusterpb.QueueCancel{MessageId: o.MessageID}}}, nil
	case *queue.UpdatePrompt:
		return &clusterpb.QueueOp{Op: &clusterpb.QueueOp_Update{Update: &clusterpb.QueueUpdate{MessageId: o.MessageID, ContentJson: mustJSON(o.Content)}}}, nil
	case *queue.AmendPrompt:
		return &clusterpb.QueueOp{Op: &clusterpb.QueueOp_Amend{Amend: &clusterpb.QueueAmend{TargetId: o.TargetID, NewId: o.NewID, ContentJson: mustJSON(o.Content),
			ReplaceQueue: o.ReplaceQueue, OnTargetCompleted: o.OnTargetCompleted, Client: o.Client}}}, nil
	}
	return nil, fmt.Errorf("cluster: no protobuf form for queue op %T", op)
}

// requestFromPB is the session request r carries; Kill and GetMeta are
// not session requests and are answered by the grain itself.
func requestFromPB(r *clusterpb.Request) (session.Request, error) {
	switch b := r.Body.(type) {
	case *clusterpb.Request_Create:
		c, err := fromJSON[event.CreatedPayload](b.Create.CreatedJson, "session.created")
		return &session.Create{Created: c}, err
	case *clusterpb.Request_Append:
		drafts := make([]event.Draft, len(b.Append.Events))
		for i, d := range b.Append.Events {
			drafts[i] = event.Draft{Kind: event.Kind(d.Kind), Payload: d.Payload}
		}
		return &session.Append{Events: drafts}, nil
	case *clusterpb.Request_Subscribe:
		s := b.Subscribe
		return &session.Subscribe{From: s.From, LiveOnly: s.LiveOnly, Weak: s.Weak, Target: pidFromPB(s.Target)}, nil
	case *clusterpb.Request_Unsubscribe:
		return &session.Unsubscribe{Subscription: pidFromPB(b.Unsubscribe.Subscription)}, nil
	case *clusterpb.Request_GetState:
		return &session.GetState{}, nil
	case *clusterpb.Request_Prompt:
		p := b.Prompt
		content, err := fromJSON[[]event.Block](p.ContentJson, "prompt content")
		return &session.Prompt{MessageID: p.IdempotencyKey, Content: content, Delivery: p.Delivery, Position: p.Position,
			After: p.After, Client: p.Client, Ancillary: p.Ancillary}, err
	case *clusterpb.Request_QueueOp:
		op, err := queueOpFromPB(b.QueueOp)
		return &session.QueueOp{Op: op}, err
	case *clusterpb.Request_CancelRun:
		return &session.CancelRun{Reason: b.CancelRun.Reason}, nil
	case *clusterpb.Request_Decide:
		d := b.Decide
		return &session.Decide{Decide: run.Decide{ToolCallID: d.ToolCallId, Allow: d.Allow, Always: d.Always, OptionID: d.OptionId, Reason: d.Reason, By: d.By}}, nil
	case *clusterpb.Request_AbortRetry:
		return &session.AbortRetry{}, nil
	case *clusterpb.Request_ChangeSettings:
		s, err := fromJSON[event.Settings](b.ChangeSettings.SettingsJson, "settings")
		return &session.ChangeSettings{Settings: s}, err
	case *clusterpb.Request_RecordBash:
		s, err := fromJSON[event.BashExecutedPayload](b.RecordBash.BashJson, "bash.executed")
		return &session.RecordBash{Bash: s}, err
	case *clusterpb.Request_Compact:
		return &session.Compact{Instructions: b.Compact.Instructions}, nil
	case *clusterpb.Request_ImportHistory:
		h, err := fromJSON[event.HistoryImportedPayload](b.ImportHistory.HistoryJson, "history.imported")
		return &session.ImportHistory{History: h}, err
	case *clusterpb.Request_SetAttention:
		a := b.SetAttention
		return &session.SetAttention{Source: a.Source, Reason: a.Reason, Payload: a.Payload, Clear: a.Clear}, nil
	}
	return nil, fmt.Errorf("cluster: request %T is not a session request", r.Body)
}

func queueOpFromPB(op *clusterpb.QueueOp) (any, error) {
	switch o := op.GetOp().(type) {
	case *clusterpb.QueueOp_Cancel:
		return &queue.CancelPrompt{MessageID: o.Cancel.MessageId}, nil
	case *clusterpb.QueueOp_Update:
		c, err := fromJSON[[]event.Block](o.Update.ContentJson, "prompt content")
		return &queue.UpdatePrompt{MessageID: o.Update.MessageId, Content: c}, err
	case *clusterpb.QueueOp_Amend:
		a := o.Amend
		c, err := fromJSON[[]event.Block](a.ContentJson, "prompt content")
		return &queue.AmendPrompt{TargetID: a.TargetId, NewID: a.NewId, Content: c, ReplaceQueue: a.ReplaceQueue,
			OnTargetCompleted: a.OnTargetCompleted, Client: a.Client}, err
	}
	return nil, fmt.Errorf("cluster: unknown queue op %T", op.GetOp())
}

// replyToPB is the protobuf form of a session's (or the registry's) reply.
func replyToPB(res any) *clusterpb.Reply {
	switch m := res.(type) {
	case *sessions.RouteFailed:
		return &clusterpb.Reply{RouteFailed: errorToPB(m.Err)}
	case *session.Appended:
		return &clusterpb.Reply{Error: errorToPB(m.Err), Body: &clusterpb.Reply_Appended{Appended: &clusterpb.Appended{FirstSeq: m.FirstSeq, LastSeq: m.LastSeq}}}
	case *session.Subscribed:
		return &clusterpb.Reply{Error: errorToPB(m.Err), Body: &clusterpb.Reply_Subscribed{Subscribed: &clusterpb.Subscribed{Subscription: pidToPB(m.Subscription), ReplayTo: m.ReplayTo}}}
	case *session.StateReply:
		return &clusterpb.Reply{Error: errorToPB(m.Err), Body: &clusterpb.Reply_State{State: &clusterpb.StateReply{StateJson: mustJSON(m.State)}}}
	case *queue.Enqueued:
		return &clusterpb.Reply{Error: errorToPB(m.Err), Body: &clusterpb.Reply_Enqueued{Enqueued: &clusterpb.Enqueued{MessageId: m.MessageID, Position: int64(m.Position), Depth: int64(m.Depth)}}}
	case *queue.Result:
		return &clusterpb.Reply{Error: errorToPB(m.Err), Body: &clusterpb.Reply_QueueResult{QueueResult: &clusterpb.QueueResult{Ok: m.OK, Reason: m.Reason, MessageId: m.MessageID}}}
	case *session.CancelRunReply:
		return &clusterpb.Reply{Body: &clusterpb.Reply_CancelRun{CancelRun: &clusterpb.CancelRunReply{RunId: m.RunID, Queued: int64(m.Queued), Running: m.Running}}}
	case *run.DecideResult:
		return &clusterpb.Reply{Error: errorToPB(m.Err), Body: &clusterpb.Reply_Decided{Decided: &clusterpb.Decided{}}}
	case *session.CompactReply:
		return &clusterpb.Reply{Error: errorToPB(m.Err), Body: &clusterpb.Reply_Compact{Compact: &clusterpb.CompactReply{Summary: m.Summary, FirstKeptEntryId: m.FirstKeptEntryID, TokensBefore: int64(m.TokensBefore)}}}
	case *session.AttentionReply:
		return &clusterpb.Reply{Error: errorToPB(m.Err), Body: &clusterpb.Reply_Attention{Attention: &clusterpb.AttentionReply{FlagsJson: mustJSON(m.Flags), Changed: m.Changed}}}
	case *sessions.Killed:
		return &clusterpb.Reply{Body: &clusterpb.Reply_Killed{Killed: &clusterpb.Killed{}}}
	}
	return &clusterpb.Reply{RouteFailed: errorToPB(fmt.Errorf("cluster: no protobuf form for reply %T", res))}
}

// replyFromPB is the Go reply the facade reads (call.read), as the local
// registry would have answered it.
func replyFromPB(r *clusterpb.Reply) (any, error) {
	if r.RouteFailed != nil {
		return &sessions.RouteFailed{Err: errorFromPB(r.RouteFailed)}, nil
	}
	err := errorFromPB(r.Error)
	switch b := r.Body.(type) {
	case *clusterpb.Reply_Appended:
		return &session.Appended{FirstSeq: b.Appended.FirstSeq, LastSeq: b.Appended.LastSeq, Err: err}, nil
	case *clusterpb.Reply_Subscribed:
		return &session.Subscribed{Subscription: pidFromPB(b.Subscribed.Subscription), ReplayTo: b.Subscribed.ReplayTo, Err: err}, nil
	case *clusterpb.Reply_State:
		st, derr := fromJSON[session.State](b.State.StateJson, "state")
		if derr != nil {
			return nil, derr
		}
		if string(st.MCPServers) == "null" {
			st.MCPServers = nil // none, as the session folded it (JSON says null)
		}
		return &session.StateReply{State: st, Err: err}, nil
	case *clusterpb.Reply_Enqueued:
		e := b.Enqueued
		return &queue.Enqueued{MessageID: e.MessageId, Position: int(e.Position), Depth: int(e.Depth), Err: err}, nil
	case *clusterpb.Reply_QueueResult:
		q := b.QueueResult
		return &queue.Result{OK: q.Ok, Reason: q.Reason, MessageID: q.MessageId, Err: err}, nil
	case *clusterpb.Reply_CancelRun:
		c := b.CancelRun
		return &session.CancelRunReply{RunID: c.RunId, Queued: int(c.Queued), Running: c.Running}, nil
	case *clusterpb.Reply_Decided:
		return &run.DecideResult{Err: err}, nil
	case *clusterpb.Reply_Compact:
		c := b.Compact
		return &session.CompactReply{Summary: c.Summary, FirstKeptEntryID: c.FirstKeptEntryId, TokensBefore: int(c.TokensBefore), Err: err}, nil
	case *clusterpb.Reply_Attention:
		flags, derr := fromJSON[[]event.AttentionFlag](b.Attention.FlagsJson, "attention flags")
		if derr != nil {
			return nil, derr
		}
		return &session.AttentionReply{Flags: flags, Changed: b.Attention.Changed, Err: err}, nil
	case *clusterpb.Reply_Killed:
		return &sessions.Killed{}, nil
	}
	return nil, fmt.Errorf("cluster: reply with no body (%v)", err)
}

func eventsToPB(m *session.Events) *clusterpb.Events {
	out := &clusterpb.Events{SessionId: m.SessionID, Events: make([]*clusterpb.Event, len(m.Events))}
	for i, e := range m.Events {
		out.Events[i] = &clusterpb.Event{SessionId: e.SessionID, Seq: e.Seq, RecordedAtUnixNano: e.RecordedAt.UnixNano(), Kind: string(e.Kind), Payload: e.Payload}
	}
	return out
}

func eventsFromPB(m *clusterpb.Events) *session.Events {
	out := &session.Events{SessionID: m.SessionId, Events: make([]event.Event, len(m.Events))}
	for i, e := range m.Events {
		out.Events[i] = event.Event{SessionID: e.SessionId, Seq: e.Seq, RecordedAt: time.Unix(0, e.RecordedAtUnixNano).UTC(), Kind: event.Kind(e.Kind), Payload: e.Payload}
	}
	return out
}
