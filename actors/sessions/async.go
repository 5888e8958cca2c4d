package sessions

import (
	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions/internal/queue"
	"github.com/troupehq/troupe/actors/sessions/internal/session"
	"github.com/troupehq/troupe/persistence/event"
)

// Async makes the client's requests from inside an actor without blocking
// its mailbox: each answer runs its callback on the actor's own mailbox
// (protoactor's ReenterAfter), as a system message, so possibly before
// ordinary messages that arrived earlier: a caller that needs an order
// keeps it itself (rpc holds a response until its fold has the seq it
// names). A request that does not reach its session answers
// *UnreachableError.
type Async struct {
	c   *Client
	ctx actor.Context
}

// Async is the client for the actor whose Receive ctx belongs to.
func (c *Client) Async(ctx actor.Context) Async {
	return Async{c: c, ctx: ctx}
}

// send is run's counterpart: then (if set) gets the answer on the mailbox.
func send[R any](a Async, id string, k call[R], then func(R, error)) {
	f := a.ctx.RequestFuture(a.c.registry, &Route{ID: id, Msg: k.msg}, requestTimeout)
	a.ctx.ReenterAfter(f, func(res any, err error) {
		if rf, ok := res.(*RouteFailed); ok {
			err = rf.Err
		}
		var r R
		if err != nil {
			err = &UnreachableError{Session: id, Err: err}
		} else {
			r, err = k.read(res)
		}
		if then != nil {
			then(r, err)
		}
	})
}

// only drops a result the caller does not need.
func only[R any](then func(error)) func(R, error) {
	if then == nil {
		return nil
	}
	return func(_ R, err error) { then(err) }
}

// Subscribe subscribes this actor: *Events from seq from (then live), and
// *Closed at the end.
func (a Async) Subscribe(id string, from int64, liveOnly bool, then func(Subscribed, error)) {
	send(a, id, subscribeCall(from, liveOnly, a.ctx.Self()), then)
}

// Follow is Client.Follow for this actor.
func (a Async) Follow(id string, from int64, then func(Subscribed, error)) {
	send(a, id, subscribeMsg(&session.Subscribe{From: from, LiveOnly: from <= 0, Weak: true, Target: a.ctx.Self()}), then)
}

// Prompt is Client.Prompt.
func (a Async) Prompt(id string, req PromptRequest, then func(PromptResult, error)) {
	send(a, id, promptCall(req), then)
}

// Cancel is Client.Cancel.
func (a Async) Cancel(id, reason string, then func(CancelResult, error)) {
	send(a, id, cancelCall(reason), then)
}

// Decide is Client.Decide.
func (a Async) Decide(id string, d Decision, then func(error)) {
	send(a, id, decideCall(d), only[struct{}](then))
}

// AbortRetry is Client.AbortRetry.
func (a Async) AbortRetry(id string, then func(error)) {
	send(a, id, abortRetryCall(), only[struct{}](then))
}

// SetSettings is Client.SetSettings.
func (a Async) SetSettings(id string, set event.Settings, then func(seq int64, err error)) {
	send(a, id, settingsCall(set), then)
}

// SetMode is Client.SetMode.
func (a Async) SetMode(id, mode string, then func(seq int64, err error)) {
	a.SetSettings(id, event.Settings{ApprovalMode: &mode}, then)
}

// Compact is Client.Compact.
func (a Async) Compact(id, instructions string, then func(CompactResult, error)) {
	send(a, id, compactCall(instructions), then)
}

// ImportHistory is Client.ImportHistory.
func (a Async) ImportHistory(id string, h event.HistoryImportedPayload, then func(seq int64, err error)) {
	send(a, id, importCall(h), then)
}

// RecordBash is Client.RecordBash.
func (a Async) RecordBash(id string, b event.BashExecutedPayload, then func(seq int64, err error)) {
	send(a, id, bashCall(b), then)
}

// QueueCancel is Client.QueueCancel.
func (a Async) QueueCancel(id, messageID string, then func(QueueResult, error)) {
	send(a, id, queueCall(&queue.CancelPrompt{MessageID: messageID}), then)
}

// QueueUpdate is Client.QueueUpdate.
func (a Async) QueueUpdate(id, messageID string, content []event.Block, then func(QueueResult, error)) {
	send(a, id, queueCall(&queue.UpdatePrompt{MessageID: messageID, Content: content}), then)
}

// QueueAmend is Client.QueueAmend.
func (a Async) QueueAmend(id string, req AmendRequest, then func(QueueResult, error)) {
	send(a, id, amendCall(req), then)
}

// Append is Client.Append: then gets the last seq once it is durable.
func (a Async) Append(id string, drafts []event.Draft, then func(seq int64, err error)) {
	send(a, id, appended(&session.Append{Events: drafts}, "append"), then)
}

// State is Client.State.
func (a Async) State(id string, then func(State, error)) {
	send(a, id, stateCall(), then)
}
