package queue

import (
	"fmt"
	"log/slog"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/persistence/event"
)

// defaultMode takes steering and follow-up messages one at a time.
const defaultMode = event.QueueOneAtATime

// Config seeds a queue actor.
type Config struct {
	Session  *actor.PID
	State    State // folded from the log
	Steering string
	FollowUp string
}

// Props builds the queue actor.
func Props(cfg Config) *actor.Props {
	if cfg.Steering == "" {
		cfg.Steering = defaultMode
	}
	if cfg.FollowUp == "" {
		cfg.FollowUp = defaultMode
	}
	return actor.PropsFromProducer(func() actor.Actor {
		return &queue{cfg: cfg, state: cfg.State.Clone()}
	})
}

type queue struct {
	cfg   Config
	log   *slog.Logger
	state State
	// amends maps a running prompt being amended to its replacement, which
	// starts as soon as the amended run ends.
	amends map[string]string
}

func (q *queue) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		q.log = actorlog.For(ctx)
		q.amends = map[string]string{}
		q.schedule(ctx)
	case *Enqueue:
		q.enqueue(ctx, m)
	case *CancelPrompt:
		q.cancelPrompt(ctx, m)
	case *UpdatePrompt:
		q.update(ctx, m)
	case *AmendPrompt:
		q.amend(ctx, m)
	case *SetModes:
		if m.Steering != "" {
			q.cfg.Steering = m.Steering
		}
		if m.FollowUp != "" {
			q.cfg.FollowUp = m.FollowUp
		}
	case *TakeMessages:
		ctx.Respond(q.take(ctx, m))
	case *Returned:
		q.giveBack(ctx, m.Messages)
	case *RunEnded:
		if q.state.Running == m.RunID {
			q.state.Running = ""
		}
		q.state.Ended.add(m.RunID, m.Cancelled)
		q.schedule(ctx)
	case *GetState:
		ctx.Respond(&StateReply{State: q.state.Clone()})
	default:
		actorlog.Unhandled(q.log, ctx)
	}
}

// emit folds the events into the queue's own state (it is their only
// writer, so its view is exact) and hands them to the session.
func (q *queue) emit(ctx actor.Context, reply any, replyTo *actor.PID, kind event.Kind, payload any) {
	if d, ok := q.fold(ctx, kind, payload); ok {
		ctx.Send(q.cfg.Session, &Emit{Events: []event.Draft{d}, Reply: reply, ReplyTo: replyTo})
	}
}

// fold makes the draft and applies it to the queue's state.
func (q *queue) fold(ctx actor.Context, kind event.Kind, payload any) (event.Draft, bool) {
	d, err := event.NewDraft(kind, payload)
	if err != nil {
		q.log.Error("queue event not emitted", "kind", kind, "error", err)
		return event.Draft{}, false
	}
	_ = q.state.Apply(event.Event{Kind: kind, Payload: d.Payload})
	return d, true
}

func (q *queue) enqueue(ctx actor.Context, m *Enqueue) {
	e := m.Prompt
	if e.Delivery == "" {
		e.Delivery = event.DeliveryPrompt
	}
	if q.known(e.MessageID) {
		// A request sent again while its prompt waits or runs (a
		// client's retry, the cluster's after a member's loss) names the
		// message id it was queued under: the prompt is queued once, and
		// the answer says where it is now.
		ctx.Respond(&Enqueued{MessageID: e.MessageID, Position: q.position(e.MessageID, e.Delivery), Depth: q.state.Pending()})
		return
	}
	d, ok := q.fold(ctx, event.PromptQueued, event.PromptQueuedPayload{
		MessageID: e.MessageID, Content: e.Content, Delivery: e.Delivery,
		Position: m.Position, AfterMessageID: m.After, Client: e.Client, Ancillary: e.Ancillary,
	})
	if !ok {
		ctx.Respond(&Enqueued{MessageID: e.MessageID, Err: fmt.Errorf("queue %s: invalid prompt", e.MessageID)})
		return
	}
	reply := &Enqueued{MessageID: e.MessageID, Position: q.position(e.MessageID, e.Delivery), Depth: q.state.Pending()}
	// The durable ack travels with the event: the session answers once
	// prompt.queued is committed. (A separate, empty Emit could reach the
	// session after that commit was acknowledged, and nothing would ever
	// answer it.)
	ctx.Send(q.cfg.Session, &Emit{Events: []event.Draft{d}, Reply: reply, ReplyTo: ctx.Sender()})
	q.schedule(ctx)
}

// known says whether the log holds a prompt under id that has not ended:
// waiting or running. One that ended may be sent again under its id (a
// json-stream client's msg_id names its next message as well).
func (q *queue) known(id string) bool {
	return id != "" && (q.state.Running == id || q.state.Waiting.Has(id))
}

// position is a prompt's place: 0 runs now (or joins the running run, or
// has ended), n waits behind n-1 others and the running one.
func (q *queue) position(id, delivery string) int {
	if q.state.Running == id || !q.state.Waiting.Has(id) {
		return 0
	}
	pos := q.state.Waiting.Index(id)
	if q.state.Running != "" {
		pos++ // the running prompt is ahead of everything queued
	}
	if delivery != event.DeliveryPrompt && q.state.Running != "" {
		pos = 0
	}
	return pos
}

// schedule starts the next run when nothing runs: the first entry, whatever
// its delivery (a steer or follow-up with no run to join becomes a prompt).
func (q *queue) schedule(ctx actor.Context) {
	waiting := q.state.Waiting.Entries()
	if q.state.Running != "" || len(waiting) == 0 {
		return
	}
	next := waiting[0].MessageID
	for old, repl := range q.amends {
		if q.state.Waiting.Has(repl) {
			next = repl
			delete(q.amends, old)
			break
		}
	}
	q.state.Waiting.Take(next)
	q.state.Running = next
	ctx.Send(q.cfg.Session, &StartRun{MessageID: next})
}

// take hands the running turn its steering messages (at a tool boundary) or,
// at the end of a run, steering then follow-up messages, per mode.
func (q *queue) take(ctx actor.Context, m *TakeMessages) *Messages {
	kinds := []string{event.DeliverySteer}
	if !m.Steer {
		kinds = append(kinds, event.DeliveryFollowUp)
	}
	for _, kind := range kinds {
		mode := q.cfg.Steering
		if kind == event.DeliveryFollowUp {
			mode = q.cfg.FollowUp
		}
		out := &Messages{Delivery: kind}
		for _, e := range q.state.Waiting.Entries() {
			if e.Delivery != kind {
				continue
			}
			out.IDs = append(out.IDs, e.MessageID)
			out.Contents = append(out.Contents, e.Content)
			if mode != event.QueueAll {
				break
			}
		}
		if len(out.IDs) > 0 {
			// prompt.delivered is written by the turn, in the run's order;
			// the queue forgets the entries now so no one takes them twice.
			for _, id := range out.IDs {
				q.state.Waiting.Take(id)
				q.state.Ended.add(id, false) // joined the run under way
			}
			return out
		}
	}
	return &Messages{}
}

func (q *queue) cancelPrompt(ctx actor.Context, m *CancelPrompt) {
	q.changeQueued(ctx, m.MessageID, event.PromptCancelled, event.PromptChangedPayload{MessageID: m.MessageID, Reason: "cancelled"})
}

func (q *queue) update(ctx actor.Context, m *UpdatePrompt) {
	q.changeQueued(ctx, m.MessageID, event.PromptUpdated, event.PromptChangedPayload{MessageID: m.MessageID, Content: m.Content})
}

// changeQueued applies a cancel or update to a waiting entry, answering
// with the hydra reasons when it is running or unknown.
func (q *queue) changeQueued(ctx actor.Context, id string, kind event.Kind, p event.PromptChangedPayload) {
	switch {
	case id == q.state.Running:
		ctx.Respond(&Result{Reason: "already_running"})
	case q.state.Waiting.Index(id) < 0:
		ctx.Respond(&Result{Reason: "not_found"})
	default:
		q.emit(ctx, &Result{OK: true, Reason: "ok"}, ctx.Sender(), kind, p)
	}
}

func (q *queue) amend(ctx actor.Context, m *AmendPrompt) {
	if m.TargetID == "" {
		// Nothing running has an empty id either: without this an amend
		// naming no target "amends" the idle session's empty run.
		ctx.Respond(&Result{Reason: "target_not_found"})
		return
	}
	if i := q.state.Waiting.Index(m.TargetID); i >= 0 {
		q.emit(ctx, &Result{OK: true, Reason: "ok", MessageID: m.TargetID}, ctx.Sender(), event.PromptUpdated, event.PromptChangedPayload{MessageID: m.TargetID, Content: m.Content})
		if m.ReplaceQueue {
			q.dropAfter(ctx, i)
		}
		return
	}
	if m.TargetID != q.state.Running {
		ended, cancelled := q.state.Ended.Outcome(m.TargetID)
		switch {
		case !ended:
			// Not a prompt of this session's recent queue: a mistyped id
			// is not sent anyway.
			ctx.Respond(&Result{Reason: "target_not_found"})
			return
		case cancelled:
			ctx.Respond(&Result{Reason: "target_cancelled"})
			return
		}
		if m.OnTargetCompleted == "send_anyway" {
			// Sent as a regular follow-up; the answer is still a Result
			// (as QueueOp promises), naming the id that was sent.
			q.emit(ctx, &Result{OK: true, Reason: "target_completed", MessageID: m.NewID}, ctx.Sender(), event.PromptQueued, event.PromptQueuedPayload{
				MessageID: m.NewID, Content: m.Content, Delivery: event.DeliveryFollowUp, Client: m.Client,
			})
			q.schedule(ctx)
			return
		}
		ctx.Respond(&Result{Reason: "target_completed"})
		return
	}
	if m.ReplaceQueue {
		q.dropAfter(ctx, -1)
	}
	q.emit(ctx, nil, nil, event.PromptAmended, event.PromptChangedPayload{MessageID: m.TargetID, Content: m.Content, Reason: "amended by " + m.NewID, Client: m.Client})
	q.emit(ctx, &Result{OK: true, Reason: "ok", MessageID: m.NewID}, ctx.Sender(), event.PromptQueued, event.PromptQueuedPayload{
		MessageID: m.NewID, Content: m.Content, Delivery: event.DeliveryPrompt, Position: "head", Client: m.Client,
	})
	q.amends[m.TargetID] = m.NewID
	ctx.Send(q.cfg.Session, &CancelRun{RunID: m.TargetID, Reason: "amended"})
}

// dropAfter cancels every entry after index i.
func (q *queue) dropAfter(ctx actor.Context, i int) {
	for _, e := range append([]event.Prompt(nil), q.state.Waiting.Entries()[i+1:]...) {
		q.emit(ctx, nil, nil, event.PromptCancelled, event.PromptChangedPayload{MessageID: e.MessageID, Reason: "replaced by an amend"})
	}
}

// giveBack puts messages a turn could not deliver back at the head, in
// their order. Taking them wrote no event, so the log already agrees.
func (q *queue) giveBack(ctx actor.Context, m Messages) {
	back := make([]event.Prompt, len(m.IDs))
	for i, id := range m.IDs {
		back[i] = event.Prompt{MessageID: id, Content: m.Contents[i], Delivery: m.Delivery}
	}
	q.state.Waiting.Restore(back)
	q.schedule(ctx)
}
