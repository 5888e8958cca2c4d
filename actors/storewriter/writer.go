package storewriter

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/troupehq/troupe/runtime/metrics"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
)

// Options tune group commit.
type Options struct {
	// Window delays the first commit after an idle period so that more
	// appends can join it. Zero commits at once; batches still form from
	// whatever arrives while a commit is in flight.
	Window time.Duration
	// MaxBatch ends the window early once this many events wait; 0 means 4096.
	MaxBatch int
	// RenewEvery is how often this process's leases get a heartbeat: in a
	// commit that happens anyway when one is due, else in one of its own.
	// 0 means a third of the store's lease TTL.
	RenewEvery time.Duration
	// Dispatcher runs the writer's mailbox; nil is protoactor's default.
	Dispatcher actor.Dispatcher
}

// Props builds the writer actor over store.
func Props(store *persistence.Store, opts Options) *actor.Props {
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = 4096
	}
	if opts.RenewEvery <= 0 {
		opts.RenewEvery = store.LeaseTTL() / 3
	}
	produce := func() actor.Actor {
		return &writer{store: store, opts: opts, failedGen: map[string]uint64{}}
	}
	if opts.Dispatcher != nil {
		return actor.PropsFromProducer(produce, actor.WithDispatcher(opts.Dispatcher))
	}
	return actor.PropsFromProducer(produce)
}

type writer struct {
	store *persistence.Store
	opts  Options

	pending   persistence.Batch
	replies   []reply
	inflight  bool
	windowSet bool
	drains    []*actor.PID
	failedGen map[string]uint64

	log        *slog.Logger
	leases     bool // the store writes as an owner
	lastRenew  time.Time
	renewTimer *time.Timer
	commits    chan<- commitJob // to the committer goroutine
}

type windowElapsed struct{}

func (w *writer) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		w.log = actorlog.For(ctx)
		w.startCommitter(ctx)
		w.leases = w.store.Owner().ID != ""
		w.lastRenew = time.Now()
		w.armRenew(ctx)
	case *actor.Stopping, *actor.Restarting:
		if w.renewTimer != nil {
			w.renewTimer.Stop()
		}
		w.stopCommitter()
	case *renewTick:
		if time.Since(w.lastRenew) >= w.opts.RenewEvery {
			w.pending.Renew = true
			w.maybeFlush(ctx)
		}
		w.armRenew(ctx)
	case *Append:
		w.append(ctx, m)
	case *Claim:
		// A release still pending is a stopped incarnation's; the batch
		// would run it after this claim and leave the next one without
		// its lease.
		w.pending.Releases = slices.DeleteFunc(w.pending.Releases, func(id string) bool { return id == m.SessionID })
		w.pending.Claims = append(w.pending.Claims, m.SessionID)
		w.replies = append(w.replies, reply{to: m.ReplyTo, msg: &Claimed{SessionID: m.SessionID}})
		w.maybeFlush(ctx)
	case *Release:
		w.pending.Releases = append(w.pending.Releases, m.SessionID)
		w.maybeFlush(ctx)
	case *SetStatus:
		w.pending.Statuses = append(w.pending.Statuses, m.Change)
		w.replies = append(w.replies, reply{to: m.ReplyTo, msg: &StatusSet{SessionID: m.Change.SessionID}})
		w.maybeFlush(ctx)
	case *Drain:
		w.drains = append(w.drains, ctx.Sender())
		w.maybeFlush(ctx)
		w.answerDrains(ctx)
	case *windowElapsed:
		w.windowSet = false
		w.flush(ctx)
	case *batchDone:
		w.done(ctx, m)
	default:
		actorlog.Unhandled(w.log, ctx)
	}
}

func (w *writer) append(ctx actor.Context, m *Append) {
	if failed, ok := w.failedGen[m.SessionID]; ok && m.Gen <= failed {
		w.send(ctx, m.ReplyTo, &Committed{SessionID: m.SessionID, Gen: m.Gen, Err: ErrStaleGeneration})
		return
	}
	if m.Meta != nil {
		// A cold status still pending is a stopped incarnation's: the
		// batch would write it after this newer row, leaving a hosted
		// session's row cold, which a list trusts not to grow.
		w.pending.Statuses = slices.DeleteFunc(w.pending.Statuses, func(c persistence.StatusChange) bool {
			return c.SessionID == m.SessionID && c.Status == persistence.StatusCold
		})
		w.pending.Metas = append(w.pending.Metas, *m.Meta)
	}
	w.pending.Events = append(w.pending.Events, m.Events...)
	if m.Epoch != 0 {
		if w.pending.Epochs == nil {
			w.pending.Epochs = map[string]int64{}
		}
		w.pending.Epochs[m.SessionID] = m.Epoch
	}
	var last int64
	if n := len(m.Events); n > 0 {
		last = m.Events[n-1].Seq
	}
	w.replies = append(w.replies, reply{to: m.ReplyTo, msg: &Committed{SessionID: m.SessionID, Gen: m.Gen, LastSeq: last}})
	w.maybeFlush(ctx)
}

// maybeFlush starts a commit unless one is in flight (its completion picks
// the pending batch up) or the window is still collecting.
func (w *writer) maybeFlush(ctx actor.Context) {
	if w.inflight || w.pending.Empty() {
		return
	}
	if w.opts.Window > 0 && len(w.pending.Events) < w.opts.MaxBatch && len(w.drains) == 0 {
		if !w.windowSet {
			w.windowSet = true
			self, sys := ctx.Self(), ctx.ActorSystem()
			time.AfterFunc(w.opts.Window, func() { sys.Root.Send(self, &windowElapsed{}) })
		}
		return
	}
	w.flush(ctx)
}

// flush hands the pending batch to a goroutine so the mailbox keeps
// accepting appends for the next batch while SQLite commits this one.
func (w *writer) flush(ctx actor.Context) {
	// Without a committer the writer is stopping: shutdown drained it
	// first, and what comes after has no one to commit it.
	if w.inflight || w.pending.Empty() || w.commits == nil {
		return
	}
	batch, replies := w.pending, w.replies
	w.pending, w.replies = persistence.Batch{}, nil
	if w.leases && time.Since(w.lastRenew) >= w.opts.RenewEvery {
		batch.Renew = true
	}
	if batch.Renew {
		w.lastRenew = time.Now()
	}
	w.inflight = true
	w.commits <- commitJob{batch: batch, replies: replies}
}

// commitJob is one batch for the committer goroutine.
type commitJob struct {
	batch   persistence.Batch
	replies []reply
}

// startCommitter runs the commits in one long-lived goroutine the writer
// owns (a goroutine per commit kept growing fresh stacks on the hot
// path). At most one batch is in flight, so the send never blocks the
// mailbox; closing the channel ends the goroutine after that batch.
func (w *writer) startCommitter(ctx actor.Context) {
	jobs := make(chan commitJob, 1)
	w.commits = jobs
	self, root, store := ctx.Self(), ctx.ActorSystem().Root, w.store
	go func() {
		for j := range jobs {
			began := time.Now()
			outcome, err := store.Commit(context.Background(), j.batch)
			observeCommit(j.batch, outcome, err, time.Since(began))
			if err == nil && len(outcome.Lost) == 0 && len(outcome.Failed) == 0 {
				// The common case needs none of the writer's state: the
				// senders hear from here, a hop sooner than through the
				// mailbox, and the writer only learns the commit is done.
				answer(root, j.replies, outcome)
				j.replies = nil
			}
			root.Send(self, &batchDone{batch: j.batch, replies: j.replies, outcome: outcome, err: err})
		}
	}()
}

// answer sends the replies of a batch that committed with no write fenced:
// refused claims carry their holder.
func answer(root *actor.RootContext, replies []reply, outcome persistence.Outcome) {
	for _, r := range replies {
		if c, ok := r.msg.(*Claimed); ok {
			if h, held := outcome.Refused[c.SessionID]; held {
				c.Held = &h
			}
			c.Epoch = outcome.Epochs[c.SessionID]
		}
		if r.to != nil {
			root.Send(r.to, r.msg)
		}
	}
}

func (w *writer) stopCommitter() {
	if w.commits != nil {
		close(w.commits)
		w.commits = nil
	}
}

// armRenew schedules the next heartbeat check; without leases there is
// nothing to renew.
func (w *writer) armRenew(ctx actor.Context) {
	if !w.leases {
		return
	}
	self, root := ctx.Self(), ctx.ActorSystem().Root
	w.renewTimer = time.AfterFunc(w.opts.RenewEvery, func() { root.Send(self, &renewTick{}) })
}

func (w *writer) done(ctx actor.Context, m *batchDone) {
	w.inflight = false
	if m.err != nil {
		w.log.Error("commit failed", "events", len(m.batch.Events), "error", m.err)
		w.fail(ctx, m)
	} else {
		w.succeed(ctx, m)
	}
	w.flush(ctx)
	w.answerDrains(ctx)
}

// succeed answers every sender of a committed batch the committer did not
// answer itself: one where some session's writes were left out, because
// another process took its lease (it hears ErrLeaseLost) or because the
// store refused its rows (it hears why). Only that session hears an error,
// and its generation is fenced as after a failure; the rest committed.
func (w *writer) succeed(ctx actor.Context, m *batchDone) {
	for id, err := range m.outcome.Failed {
		w.log.Error("a session's writes were refused; the rest of the batch committed", "session", id, "error", err)
	}
	for id := range m.outcome.Lost {
		w.log.Warn("a session's writes were fenced: another process holds its lease now", "session", id, "error", m.outcome.LeftOut(id))
		metrics.LeaseFenced.Inc()
	}
	var fenced map[string]bool // made on the first fence: most batches have none
	for _, r := range m.replies {
		switch msg := r.msg.(type) {
		case *Committed:
			if err := m.outcome.LeftOut(msg.SessionID); err != nil {
				msg.Err, msg.LastSeq = err, 0
				fenced = w.fence(fenced, msg)
			}
		case *StatusSet:
			if err := m.outcome.LeftOut(msg.SessionID); err != nil {
				msg.Err = err
			}
		case *Claimed:
			if h, held := m.outcome.Refused[msg.SessionID]; held {
				msg.Held = &h
			}
			msg.Epoch = m.outcome.Epochs[msg.SessionID]
		}
		w.send(ctx, r.to, r.msg)
	}
	w.dropFenced(ctx, fenced)
}

// fail answers every sender of the batch with the error and fences the
// failed generations, including their appends already waiting in pending.
func (w *writer) fail(ctx actor.Context, m *batchDone) {
	var fenced map[string]bool // made on the first fence: most batches have none
	for _, r := range m.replies {
		switch msg := r.msg.(type) {
		case *Committed:
			msg.Err = m.err
			msg.LastSeq = 0
			fenced = w.fence(fenced, msg)
		case *StatusSet:
			msg.Err = m.err
		case *Claimed:
			msg.Err = m.err
		}
		w.send(ctx, r.to, r.msg)
	}
	w.dropFenced(ctx, fenced)
}

func (w *writer) fence(fenced map[string]bool, c *Committed) map[string]bool {
	w.failedGen[c.SessionID] = max(w.failedGen[c.SessionID], c.Gen)
	if fenced == nil {
		fenced = map[string]bool{}
	}
	fenced[c.SessionID] = true
	return fenced
}

// dropFenced refuses the pending appends of the sessions just fenced. They
// are all of the fenced generation: a session's next incarnation sends
// nothing before its Claim, which is answered only after this batch.
func (w *writer) dropFenced(ctx actor.Context, fenced map[string]bool) {
	if len(fenced) == 0 {
		return
	}
	w.pending.Events = slices.DeleteFunc(w.pending.Events, func(e event.Event) bool { return fenced[e.SessionID] })
	w.replies = slices.DeleteFunc(w.replies, func(r reply) bool {
		c, ok := r.msg.(*Committed)
		if !ok || !fenced[c.SessionID] || c.Gen > w.failedGen[c.SessionID] {
			return false
		}
		c.Err = ErrStaleGeneration
		w.send(ctx, r.to, c)
		return true
	})
}

func (w *writer) answerDrains(ctx actor.Context) {
	if w.inflight || !w.pending.Empty() {
		return
	}
	for _, pid := range w.drains {
		w.send(ctx, pid, &Drained{})
	}
	w.drains = nil
}

func (w *writer) send(ctx actor.Context, to *actor.PID, msg any) {
	if to != nil {
		ctx.Send(to, msg)
	}
}
