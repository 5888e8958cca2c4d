package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/jsonrpc"
	"github.com/troupehq/troupe/transports/overrides"
	"github.com/troupehq/troupe/transports/projection"
)

// History policies of session/attach.
const (
	policyFull        = "full"
	policyPendingOnly = "pending_only"
	policyNone        = "none"
	policyAfter       = "after_message"
)

// attachment is one session a connection is attached to: a subscription
// from seq 1, the view it folds, and what this client did in it.
type attachment struct {
	id       string
	clientID string
	readonly bool
	// chained are this client's prompts waiting to go through the
	// session's transformer chain, one at a time so they keep their order.
	chained []func()
	view    *projection.View
	frames  *sharedFrames // the session's chunk frames, shared with other connections

	sub      *actor.PID
	replayTo int64 // -1 until the subscription answered
	early    []event.Event
	// loading: the response chain's decisions in the log (update.transformed)
	// are being read; events wait in early until they are (stopLoad ends it).
	loading  bool
	stopLoad context.CancelFunc
	// stopSnap ends the read of the attach snapshot the first
	// subscription waits for (fromSnapshot); nil when none is read.
	stopSnap  context.CancelFunc
	overrides overrides.Map
	// gateHeld are events past the session's gate, waiting for its
	// response chain (pipeline.GateOpen).
	gateHeld []event.Event
	replay   *replay // the first replay, sent before the answer; nil once live
	// staleClosed counts the Closed of subscriptions this side ended.
	staleClosed int
	// paused: the client fell behind; live events are dropped and read
	// again from the store once it has caught up (resume).
	paused bool
	cold   bool // the session stopped; the next mutation resubscribes
	// tail reads a read-only attachment to a cold session from the store
	// instead of a subscription; nil otherwise.
	tail *storeTail

	// prompts are the runs this client sent and still owes a
	// session/prompt answer for: message id -> request id.
	prompts map[string]json.RawMessage
	// decided are the tool calls this client answered.
	decided map[string]bool
	// asked are the permission requests sent to this client: tool call
	// id -> request id.
	asked map[string]int64
	// turnEnds are the seqs of the ended turns, by prompt message id;
	// lastTurn is the latest (hydra-acp/session/fork's boundaries).
	turnEnds map[string]int64
	lastTurn string
	// runEnds wait for a run's end, by run id (force_cancel's stop); they
	// go with the attachment (the cancelled run ends all the same).
	runEnds map[string]func()
	// info is what the answers' _meta says of the session beyond the view.
	info sessionInfo
	// shown are the tool calls shown with tool_call.
	shown map[string]bool
	// states are the latest update of each state kind
	// (acpupdate.State): a replay closes with them, as the session's
	// state now.
	states   map[string]*updateParams
	awaiting bool // the awaitingInput last sent
	// raised are when each permission request was made (epoch ms).
	raised map[string]int64
	// flags are the raised attention flags but the permission requests.
	flags []event.AttentionFlag
	// held are answers waiting for the view to reach a seq.
	held   []heldAnswer
	dripQ  []replayed
	dripAt time.Time
	drips  *time.Timer
}

// attachOptions is what session/attach (or load, resume, new) asked.
type attachOptions struct {
	policy   string
	anchor   string
	clientID string
	readonly bool
	// fromStore: read the store, do not subscribe (a read-only attach to
	// a cold session).
	fromStore bool
	info      ClientInfo // who attaches, for connectedClients (initialize's clientInfo by default)
	drip      bool
	speed     float64
	// inherited are the updates of a fork's inherited conversation, shown
	// before its own history when the whole of it is replayed.
	inherited []replayed
	// answer sends the method's response once the replay is out: n
	// updates were replayed, under the policy applied.
	answer func(a *attachment, n int, policy string)
	// refused answers a failure before the attachment exists.
	refused func(*jsonrpc.Error)
}

// attach checks the session exists, then subscribes from seq 1 (or past
// an attach snapshot: fromSnapshot).
func (c *conn) attach(ctx actor.Context, id string, o attachOptions) {
	if _, ok := c.att[id]; ok {
		o.refused(jsonrpc.NewError(CodeAlreadyAttached, "already attached to session "+id))
		return
	}
	c.async(ctx).Meta(id, func(m sessions.Meta, err error) {
		if err != nil {
			o.refused(SessionError(id, err))
			return
		}
		if _, ok := c.att[id]; ok || c.closing {
			o.refused(jsonrpc.NewError(CodeAlreadyAttached, "already attached to session "+id))
			return
		}
		// Watching a cold session does not start it: the store has it all.
		o.fromStore = o.readonly && m.Status != "live"
		if !o.showsInherited(m) {
			c.startAttachment(ctx, id, o)
			return
		}
		c.async(ctx).InheritedShown(m, func(evs []event.Event, err error) {
			if err != nil {
				o.refused(SessionError(id, err))
				return
			}
			if _, ok := c.att[id]; ok || c.closing {
				o.refused(jsonrpc.NewError(CodeAlreadyAttached, "already attached to session "+id))
				return
			}
			o.inherited = inheritedUpdates(id, c.cfg.Models, evs)
			c.startAttachment(ctx, id, o)
		})
	})
}

func (c *conn) startAttachment(ctx actor.Context, id string, o attachOptions) {
	if o.clientID == "" {
		o.clientID = newID("client-")
	}
	info := o.info
	if info == (ClientInfo{}) {
		info = c.client
	}
	info.ClientID = o.clientID
	if !c.cfg.Hub.join(id, info) {
		o.refused(jsonrpc.NewError(CodeAlreadyAttached, "client "+o.clientID+" is already attached to session "+id))
		return
	}
	// The session's link, if it has a chain, starts as the session comes
	// live (Pipeline.Live), which this attachment's subscription may do.
	c.cfg.Pipeline.Watch(id, c.self)
	a := &attachment{
		id: id, clientID: o.clientID, readonly: o.readonly, replayTo: -1,
		view:    &projection.View{SessionID: id, Deltas: true},
		prompts: map[string]json.RawMessage{}, decided: map[string]bool{}, asked: map[string]int64{}, shown: map[string]bool{}, turnEnds: map[string]int64{}, raised: map[string]int64{},
		replay: newReplay(id, o),
		frames: c.cfg.Hub.sharedFrames(id),
	}
	c.att[id] = a
	if o.fromStore {
		a.tailStore(c, ctx)
		a.tail.cold = true
		return
	}
	a.loadOverrides(c, ctx)
	if !a.fromSnapshot(c, ctx) {
		a.subscribe(c, ctx, 1, true)
	}
}

// subscribe subscribes from seq from; first marks the attachment's
// first subscription, whose history is the replay.
func (a *attachment) subscribe(c *conn, ctx actor.Context, from int64, first bool) {
	c.async(ctx).Subscribe(a.id, from, false, func(s sessions.Subscribed, err error) {
		if c.att[a.id] != a {
			if err == nil {
				c.cfg.Sessions.Unsubscribe(a.id, s.Subscription)
			}
			return
		}
		var held *sessions.LeaseHeldError
		if err != nil && first && a.readonly && errors.As(err, &held) {
			// Another process hosts it: watch it from the store.
			a.tailStore(c, ctx)
			return
		}
		if err != nil {
			c.log(ctx).Warn("subscribe failed", "session", a.id, "error", err)
			if first {
				a.leave(c)
				delete(c.att, a.id)
				a.replay.opts.refused(SessionError(a.id, err))
				return
			}
			// The client's next change tries again.
			a.cold = true
			return
		}
		a.sub = s.Subscription
		if first {
			a.replayTo = s.ReplayTo
			if !a.loading {
				a.begin(c, ctx)
			}
		}
	})
}

// begin projects what came before the subscription answered and the
// overrides were read.
func (a *attachment) begin(c *conn, ctx actor.Context) {
	early := a.early
	a.early = nil
	a.onEvents(c, ctx, early)
	if a.replay != nil && a.view.LastSeq >= a.replayTo {
		a.endReplay(c, ctx)
	}
}

// onEvents folds and projects events in seq order; anything already
// folded (a catch-up overlapping what was seen) is skipped.
func (a *attachment) onEvents(c *conn, ctx actor.Context, evs []event.Event) {
	if len(a.gateHeld) > 0 {
		evs = append(a.gateHeld, evs...)
		a.gateHeld = nil
	}
	released := int64(-2) // read once per batch, at the first event that needs it
	first := -1
	for i, e := range evs {
		if a.replayTo < 0 || a.loading {
			a.early = append(a.early, e)
			continue
		}
		if a.replay != nil && a.replay.ending {
			// A drip replay is under way: live events wait for its end.
			a.replay.held = append(a.replay.held, e)
			continue
		}
		if e.Seq <= a.view.LastSeq || a.paused {
			continue
		}
		if e.Seq != a.view.LastSeq+1 {
			// A gap means events of an ended subscription arrived after
			// a newer one's: the newer one brings them, in order.
			continue
		}
		if released == -2 {
			released = c.cfg.Pipeline.Released(a.id)
		}
		if e.Seq > released {
			// The response chain has not decided yet: this and the rest
			// wait for pipeline.GateOpen.
			a.gateHeld = append([]event.Event(nil), evs[i:]...)
			break
		}
		if first < 0 {
			first = i
		}
		if a.replay != nil && e.Seq > a.replayTo {
			a.endReplay(c, ctx)
			if a.replay != nil {
				a.replay.held = append(a.replay.held, e)
				continue
			}
		}
		if a.replay == nil && i == first && c.behind() {
			// Checked per batch (at most the subscription's replay batch,
			// or what one commit brought): the rest is read again from the
			// store on resume.
			a.pause(c, ctx)
			return
		}
		a.project(c, ctx, e)
		a.maybeSnapshot(c, ctx, e.Seq)
		a.release(e.Seq)
		if a.replay != nil && e.Seq == a.replayTo {
			a.endReplay(c, ctx)
		}
	}
	if r := a.replay; r != nil && r.streaming && !r.ending {
		a.flushWindow(c, ctx, false)
	}
	if released != -2 && released != math.MaxInt64 {
		c.cfg.Pipeline.Projected(a.id, c.self.String(), a.view.LastSeq)
	}
}

// onClosed: the subscription ended. One this side ended is expected;
// one whose session moved to another cluster member is taken up again
// there at once; otherwise the session stopped (idle, or killed): it is
// cold until the client next changes it.
func (a *attachment) onClosed(c *conn, ctx actor.Context, reason string, moved bool) {
	if a.staleClosed > 0 {
		a.staleClosed--
		return
	}
	if a.replay != nil && !a.replay.ending {
		// The history stopped short of the replay point (the store lacks
		// events, or the session stopped meanwhile): the answer waiting on
		// it would never go out.
		c.log(ctx).Warn("history replay ended early", "session", a.id, "reason", reason)
		a.sub = nil
		a.leave(c)
		delete(c.att, a.id)
		a.replay.opts.refused(jsonrpc.NewError(jsonrpc.CodeInternal, fmt.Sprintf("session %s: its history could not be replayed: %s", a.id, reason)))
		return
	}
	if moved {
		// The session is (or will be) hosted by another member, perhaps
		// with a run resumed there: subscribing again from the next seq
		// replays what was missed from the store, then goes live.
		c.log(ctx).Info("session moved to another cluster member; subscribing again", "session", a.id, "from", a.view.LastSeq+1)
		a.sub = nil
		a.resubscribe(c, ctx, reason)
		return
	}
	a.sub, a.cold = nil, true
	c.log(ctx).Debug("session subscription closed", "session", a.id, "reason", reason)
	// The session went cold (idle, or stopped); the attachment stays and
	// wakes it with the client's next change.
	params := map[string]string{"sessionId": a.id}
	if reason != "" && reason != "unsubscribed" {
		// Not the session going cold: its clients hear why (a store it
		// could not write, say).
		params["reason"] = reason
	}
	c.notify(ctx, "hydra-acp/session/closed", params)
}

// resubscribe subscribes a moved session's attachment again from its
// next seq; if that fails the attachment goes cold (the client's next
// change tries again) and the client hears why, as of any close.
func (a *attachment) resubscribe(c *conn, ctx actor.Context, reason string) {
	c.async(ctx).Subscribe(a.id, a.view.LastSeq+1, false, func(s sessions.Subscribed, err error) {
		if c.att[a.id] != a {
			if err == nil {
				c.cfg.Sessions.Unsubscribe(a.id, s.Subscription)
			}
			return
		}
		if err != nil {
			c.log(ctx).Warn("subscribe again after a move failed", "session", a.id, "error", err)
			a.cold = true
			c.notify(ctx, "hydra-acp/session/closed", map[string]string{"sessionId": a.id, "reason": reason + "; subscribing again failed: " + err.Error()})
			return
		}
		a.sub = s.Subscription
	})
}

// wake resubscribes a cold attachment before a request that starts the
// session, so nothing it commits is missed.
func (a *attachment) wake(c *conn, ctx actor.Context) {
	if !a.cold {
		return
	}
	a.cold = false
	a.subscribe(c, ctx, a.view.LastSeq+1, false)
}

func (a *attachment) unsubscribe(c *conn) {
	if a.sub != nil {
		c.cfg.Sessions.Unsubscribe(a.id, a.sub)
		a.sub = nil
		a.staleClosed++
	}
}

// leave ends the attachment: unsubscribed, out of the hub, permission
// requests to this client forgotten.
func (a *attachment) leave(c *conn) {
	a.unsubscribe(c)
	if a.stopLoad != nil {
		a.stopLoad()
	}
	if a.stopSnap != nil {
		a.stopSnap()
		a.stopSnap = nil
	}
	if a.tail != nil {
		a.tail.stop()
	}
	if a.drips != nil {
		a.drips.Stop()
	}
	c.cfg.Hub.leave(a.id, a.clientID)
	c.cfg.Pipeline.Unwatch(a.id, c.self)
	c.cfg.Hub.releaseFrames(a.id)
	a.release(math.MaxInt64) // answers still owed go out now
	for _, req := range a.asked {
		delete(c.outgoing, req)
	}
}

// SessionError answers a facade error over ACP: its kind's code from the
// facade's one table (sessions.KindOf), the error's text, and
// data.errorKind where the table gives kinds that share a code a name (a
// store's refused write, disk_full or store_write, as a failed run's
// does; a session another process holds, session_held).
func SessionError(id string, err error) *jsonrpc.Error {
	kind := sessions.KindOf(err)
	w := kind.Wire()
	msg := fmt.Sprintf("session %s: %v", id, err)
	if kind == sessions.KindNotFound {
		msg = "session " + id + " not found"
	}
	if w.ACPData {
		return jsonrpc.NewErrorData(w.ACPCode, msg, map[string]any{"errorKind": w.Name})
	}
	return jsonrpc.NewError(w.ACPCode, msg)
}

type heldAnswer struct {
	seq  int64
	send func()
}

// after runs send once the view has folded seq: an answer that follows
// from an event goes out after that event's updates.
func (a *attachment) after(c *conn, ctx actor.Context, seq int64, send func()) {
	if c.att[a.id] != a || a.view.LastSeq >= seq {
		send()
		return
	}
	a.held = append(a.held, heldAnswer{seq: seq, send: send})
}

func (a *attachment) release(seq int64) {
	for len(a.held) > 0 && a.held[0].seq <= seq {
		h := a.held[0]
		a.held = a.held[1:]
		h.send()
	}
}

// onRunEnd runs then once run has ended in the view (at once if it has).
func (a *attachment) onRunEnd(run string, then func()) {
	if _, ended := a.turnEnds[run]; ended {
		then()
		return
	}
	if a.runEnds == nil {
		a.runEnds = map[string]func(){}
	}
	a.runEnds[run] = then
}
