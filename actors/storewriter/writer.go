package storewriter

import (
	"context"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/persistence"
)

// Options tune group commit.
type Options struct {
	// Window delays the first commit after an idle period so that more
	// appends can join it. Zero commits at once; batches still form from
	// whatever arrives while a commit is in flight.
	Window time.Duration
	// MaxBatch ends the window early once this many events wait; 0 means 4096.
	MaxBatch int
}

// Props builds the writer actor over store.
func Props(store *persistence.Store, opts Options) *actor.Props {
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = 4096
	}
	return actor.PropsFromProducer(func() actor.Actor {
		return &writer{store: store, opts: opts, failedGen: map[string]uint64{}}
	})
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
}

type windowElapsed struct{}

func (w *writer) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *Append:
		w.append(ctx, m)
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
	}
}

func (w *writer) append(ctx actor.Context, m *Append) {
	if failed, ok := w.failedGen[m.SessionID]; ok && m.Gen <= failed {
		w.send(ctx, m.ReplyTo, &Committed{SessionID: m.SessionID, Gen: m.Gen, Err: ErrStaleGeneration})
		return
	}
	if m.Meta != nil {
		w.pending.Metas = append(w.pending.Metas, *m.Meta)
	}
	w.pending.Events = append(w.pending.Events, m.Events...)
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
	if w.inflight || w.pending.Empty() {
		return
	}
	batch, replies := w.pending, w.replies
	w.pending, w.replies = persistence.Batch{}, nil
	w.inflight = true
	self, sys, store := ctx.Self(), ctx.ActorSystem(), w.store
	go func() {
		err := store.Commit(context.Background(), batch)
		sys.Root.Send(self, &batchDone{batch: batch, replies: replies, err: err})
	}()
}

func (w *writer) done(ctx actor.Context, m *batchDone) {
	w.inflight = false
	if m.err != nil {
		ctx.Logger().Error("commit failed", "events", len(m.batch.Events), "error", m.err)
		w.fail(ctx, m)
	} else {
		for _, r := range m.replies {
			w.send(ctx, r.to, r.msg)
		}
	}
	w.flush(ctx)
	w.answerDrains(ctx)
}

// fail answers every sender of the batch with the error and fences the
// failed generations, including their appends already waiting in pending.
func (w *writer) fail(ctx actor.Context, m *batchDone) {
	for _, r := range m.replies {
		switch msg := r.msg.(type) {
		case *Committed:
			msg.Err = m.err
			msg.LastSeq = 0
			w.failedGen[msg.SessionID] = max(w.failedGen[msg.SessionID], msg.Gen)
		case *StatusSet:
			msg.Err = m.err
		}
		w.send(ctx, r.to, r.msg)
	}
	w.dropFenced(ctx)
}

func (w *writer) dropFenced(ctx actor.Context) {
	keepEvents := w.pending.Events[:0]
	for _, e := range w.pending.Events {
		if _, fenced := w.failedGen[e.SessionID]; !fenced {
			keepEvents = append(keepEvents, e)
		}
	}
	w.pending.Events = keepEvents
	keep := w.replies[:0]
	for _, r := range w.replies {
		c, ok := r.msg.(*Committed)
		if ok && c.Gen <= w.failedGen[c.SessionID] {
			if _, fenced := w.failedGen[c.SessionID]; fenced {
				c.Err = ErrStaleGeneration
				w.send(ctx, r.to, c)
				continue
			}
		}
		keep = append(keep, r)
	}
	w.replies = keep
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
