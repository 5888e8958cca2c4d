package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/actors/sessions/internal/queue"
	"github.com/troupehq/troupe/actors/sessions/internal/run"
	"github.com/troupehq/troupe/actors/sessions/mcp"
	"github.com/troupehq/troupe/actors/storewriter"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/conversation"
)

// Config is what a session actor needs.
type Config struct {
	ID     string
	Store  *persistence.Store // read side: recovery and replay
	Writer *actor.PID         // the store writer actor
	// IdleTimeout passivates the session after this long without requests,
	// subscribers or uncommitted work; 0 is DefaultIdleTimeout, and a
	// negative value never passivates (boot.Options.IdleTimeout means the
	// same: one meaning wherever the name stands).
	IdleTimeout time.Duration
	Now         func() time.Time
	// Engine runs prompts; nil hosts the log only.
	Engine *Engine
	// Dispatcher runs the mailboxes of the session and its turns; nil is
	// protoactor's default (a goroutine per mailbox run).
	Dispatcher actor.Dispatcher
	// ProcKey keys the markers of the processes tool calls start (see
	// toolMarker): the same for every process on one store, so that a
	// troupe recovering a crashed run can prove what it may kill. Nil
	// marks nothing, and recovery then signals nothing.
	ProcKey []byte
	// OnLive, when set, learns that a created session came live in this
	// process (whatever woke it) and the last seq of its log then: before
	// the session commits anything or serves a request. It runs inside
	// the session's Receive, so it must not block.
	OnLive func(id string, lastSeq int64)
	// Member, when set, names the cluster member this process is: a
	// session hosted by any member of a shared store runs only where its
	// workspace exists, and a run on a member that lacks it ends with an
	// error naming the member instead of running tools elsewhere.
	Member string
}

// Props builds a session actor. Middleware wraps its Receive (the runtime
// adds panic logging; tests add fault injection).
func Props(cfg Config, middleware ...actor.ReceiverMiddleware) *actor.Props {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return actor.PropsFromProducer(func() actor.Actor {
		return &session{cfg: cfg}
	}, withDispatcher(cfg.Dispatcher), actor.WithReceiverMiddleware(middleware...),
		// A lock-free mailbox: the stream goroutine, the children and the
		// store writer push without contending for a lock, and an idle
		// session keeps no ring buffer grown by its last burst of deltas.
		actor.WithMailbox(actor.UnboundedLockfree()),
		// A crashed child is stopped, not restarted: a restarted turn or queue
		// would start from the state it was spawned with. childStopped
		// rebuilds them from the current fold instead. MCP server actors are
		// the exception (see childStrategy).
		actor.WithSupervisor(newChildStrategy()))
}

// generations are process-wide so a restarted incarnation always outranks
// the one the store writer may have fenced.
var generations atomic.Uint64

type pendingRequest struct {
	sender *actor.PID
	msg    Request
}

type waiter struct {
	first, last int64
	to          *actor.PID
	reply       any // nil: *Appended
}

type session struct {
	cfg Config
	log *slog.Logger
	f   fold
	gen uint64
	// promptAt is when each prompt still waiting for its run's first
	// output was queued (metrics.go).
	promptAt map[string]time.Time

	recovering bool
	missing    bool // nothing on disk and no Create yet
	failed     bool
	failReason string
	claimed    bool                // this process holds the session's lease
	epoch      int64               // at this epoch (0: a store without leases); appends carry it
	held       *persistence.Holder // another live process holds it: serve nothing
	buffered   []pendingRequest
	cancelLoad context.CancelFunc
	snap       snapshotter // the fold snapshot goroutine (snapshot.go)

	committed   int64
	uncommitted []event.Event
	unsent      []event.Event // folded, not yet sent to the writer (flush.go)
	marks       []int64       // the last seq of each commit call in uncommitted
	unsentDue   bool          // unsent events or a snapshot change wait for a flush
	flushQueued bool
	waiters     []waiter
	metaSent    bool
	metaDirty   bool

	subs    map[string]*actor.PID
	weak    map[string]bool // the subscriptions that let the session passivate
	handled uint64

	queuePID *actor.PID
	runPID   *actor.PID
	// agentPID is the session's external agent (upstream), kept across
	// turns; agentID the agent it runs.
	agentPID  *actor.PID
	agentID   string
	turnRun   string
	turnToken uint64 // of the current turn; stale messages carry another
	stopping  bool
	drain     drainState // a passivation waiting for its subscribers (drain.go)
	cancelled string     // the run a cancel was sent to
	idle      idleClock  // children are being stopped with the session
	mcp       mcpState

	pendingStart string     // a run the queue started while a turn still held the slot
	resuming     string     // an interrupted run waiting for its closing events to commit
	runEndTold   string     // the run whose end the queue has been told
	compactTo    *actor.PID // who asked for the running manual compaction
	// compactNext is a manual compaction asked for after run.ended was
	// written but before its turn finished: it starts once the slot is free.
	compactNext *pendingRequest
}

func (s *session) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		s.log = actorlog.For(ctx, "session", s.cfg.ID)
		s.subs, s.weak = map[string]*actor.PID{}, map[string]bool{}
		s.startRecovery(ctx)
	case *storewriter.Claimed:
		s.onClaimed(ctx, m)
	case *storewriter.Drained:
		s.load(ctx)
	case *recovered:
		s.finishRecovery(ctx, m)
	case *storewriter.Committed:
		s.onCommitted(ctx, m)
	case *snapshotted:
		s.onSnapshotted(ctx, m)
	case *flushAppends:
		s.onFlush(ctx, m)
	case *resumeRun:
		s.onResumeRun(ctx, m)
	case *run.Emit, *run.Finished, *run.AllowCategory, *run.Compacted, *queue.Emit, *queue.StartRun, *queue.CancelRun:
		s.onEngineMessage(ctx, m)
	case *mcp.ToolsReply:
		s.onMCPTools(ctx, m)
	case *mcp.Status:
		s.onMCPStatus(ctx, m)
	case *storewriter.StatusSet:
		if m.Err != nil {
			s.log.Warn("status not recorded", "error", m.Err)
		}
	case *actor.Terminated:
		_, watched := s.subs[m.Who.Id]
		delete(s.subs, m.Who.Id)
		delete(s.weak, m.Who.Id)
		s.childStopped(ctx, m.Who)
		if watched {
			s.leaveIfUnwatched(ctx)
			s.drained(ctx)
		}
	case *idleCheck:
		s.onIdleCheck(ctx)
	case *Passivate:
		s.passivate(ctx)
	case *drainExpired:
		if s.drain.on && !s.stopping {
			s.log.Warn("stopping before its subscribers had every event", "timeout", drainTimeout)
			ctx.Stop(ctx.Self())
		}
	case *actor.Restarting:
		// The children are stopped for the restart; the new incarnation
		// rebuilds them from the log, so this one must not.
		s.stopping = true
		s.stopIdle()
		s.stopSnapshot()
		s.flush(ctx)
	case *actor.Stopping:
		s.stopping = true
		s.stopIdle()
		s.stopSnapshot()
		s.stopDrain()
		s.flush(ctx)
		if s.cancelLoad != nil {
			s.cancelLoad()
		}
		s.recordCold(ctx)
		s.release(ctx)
	case Request:
		s.touch()
		if s.recovering {
			s.buffered = append(s.buffered, pendingRequest{sender: ctx.Sender(), msg: m})
			return
		}
		s.handle(ctx, ctx.Sender(), m)
		// A passivation asked while this request was on its way was
		// dropped by the registry (it forwards, then counts): ask again.
		s.leaveIfUnwatched(ctx)
	default:
		actorlog.Unhandled(s.log, ctx)
	}
}

// startRecovery claims the session's lease, then reads the log; until then
// requests wait. The claim is answered only after the writer committed
// whatever an earlier incarnation sent it, and only a lease holder may
// recover a run: another process may be running it right now.
func (s *session) startRecovery(ctx actor.Context) {
	s.recovering = true
	s.gen = generations.Add(1)
	s.uncommitted, s.marks, s.metaSent = nil, nil, false
	s.dropUnsent()
	ctx.Send(s.cfg.Writer, &storewriter.Claim{SessionID: s.cfg.ID, ReplyTo: ctx.Self()})
}

func (s *session) onClaimed(ctx actor.Context, m *storewriter.Claimed) {
	if !s.recovering || s.cancelLoad != nil {
		return
	}
	if m.Err != nil {
		// The store cannot be written: the requests waiting on recovery
		// hear why now (the restart would drop them unanswered, to time
		// out), and the supervisor retries with backoff.
		err := fmt.Errorf("claim session %s: %w", s.cfg.ID, m.Err)
		buffered := s.buffered
		s.buffered = nil
		for _, p := range buffered {
			s.refuse(ctx, p.sender, p.msg, err)
		}
		s.endSubscriptions(ctx, "the session stopped: "+err.Error())
		panic(err)
	}
	if m.Held == nil {
		s.claimed, s.epoch = true, m.Epoch
		s.load(ctx)
		return
	}
	s.claimed, s.held, s.recovering = false, m.Held, false
	s.log.Info("session is hosted by another process", "pid", m.Held.PID, "command", m.Held.Command)
	buffered := s.buffered
	s.buffered = nil
	for _, p := range buffered {
		s.handle(ctx, p.sender, p.msg)
	}
	s.requestPassivation(ctx, false)
}

// release gives the lease up as the session stops; a restart keeps it.
func (s *session) release(ctx actor.Context) {
	if !s.claimed {
		return
	}
	s.claimed = false
	ctx.Send(s.cfg.Writer, &storewriter.Release{SessionID: s.cfg.ID})
}

func (s *session) load(ctx actor.Context) {
	if !s.recovering || s.cancelLoad != nil {
		return
	}
	loadCtx, cancel := context.WithCancel(context.Background())
	s.cancelLoad = cancel
	self, sys, store, id := ctx.Self(), ctx.ActorSystem(), s.cfg.Store, s.cfg.ID
	go func() {
		sys.Root.Send(self, recoverFromStore(loadCtx, store, id))
	}()
}

func recoverFromStore(ctx context.Context, store *persistence.Store, id string) *recovered {
	f := fold{st: State{ID: id}}
	meta, err := store.Session(ctx, id)
	if errors.Is(err, persistence.ErrSessionNotFound) {
		return &recovered{fold: f, missing: true}
	}
	if err != nil {
		return &recovered{err: err}
	}
	if meta.Status == persistence.StatusFailed {
		if err := foldParent(ctx, store, id, &f.conv, 0); err != nil {
			return &recovered{err: fmt.Errorf("recover session %s: %w", id, err)}
		}
		return &recovered{fold: f, failed: true, reason: meta.StatusReason}
	}
	// From the newest snapshot the log vouches for, else from the start
	// (a fork's conversation from its parent's).
	snap, size, fromSnap, err := loadSnapshot(ctx, store, id)
	if err != nil {
		return &recovered{err: fmt.Errorf("recover session %s: %w", id, err)}
	}
	if fromSnap {
		f = snap
	} else if err := foldParent(ctx, store, id, &f.conv, 0); err != nil {
		return &recovered{err: fmt.Errorf("recover session %s: %w", id, err)}
	}
	from := f.st.LastSeq
	var gap string
	err = store.Load(ctx, id, from+1, func(e event.Event) error {
		if e.Seq != f.st.LastSeq+1 && gap == "" {
			gap = fmt.Sprintf("the store lacks events %d to %d of session %s", f.st.LastSeq+1, e.Seq-1, id)
		}
		if err := f.apply(e, false); err != nil {
			return fmt.Errorf("fold seq %d: %w", e.Seq, err)
		}
		return nil
	})
	if err == nil {
		err = f.foldDeltas()
	}
	if err != nil {
		return &recovered{err: fmt.Errorf("recover session %s: %w", id, err)}
	}
	return &recovered{fold: f, reason: inconsistency(gap, f, meta), from: from, snapSize: size}
}

// inconsistency says why a log read back cannot be what the session
// wrote, or "": seqs missing (gap), a log that reads back shorter than the
// store says it is, a run interrupted that the log does not show running.
// Serving such a log would resume runs that ended and collide with the
// seqs it did not read, again at every recovery: the session fails instead.
func inconsistency(gap string, f fold, meta persistence.SessionMeta) string {
	switch {
	case gap != "":
		return gap
	case f.st.LastSeq != meta.LastSeq:
		return fmt.Sprintf("the log of session %s reads back to seq %d, but the store holds seq %d", meta.ID, f.st.LastSeq, meta.LastSeq)
	case f.run.inconsistent != "":
		return f.run.inconsistent
	}
	return ""
}

// maxForkDepth stops a corrupt log whose fork breadcrumbs loop.
const maxForkDepth = 64

// foldParent starts a forked session's conversation from its parent's, up
// to the fork point (recursively, for forks of forks).
func foldParent(ctx context.Context, store *persistence.Store, id string, conv *conversation.Conversation, depth int) error {
	var created event.CreatedPayload
	found := false
	err := store.LoadRange(ctx, id, 1, 1, func(e event.Event) error {
		found = e.Kind == event.SessionCreated
		return e.Decode(&created)
	})
	if err != nil || !found || created.ParentSessionID == "" || created.ForkedFromSeq <= 0 {
		return err
	}
	if depth >= maxForkDepth {
		return fmt.Errorf("fork chain of %s is deeper than %d", id, maxForkDepth)
	}
	parent := created.ParentSessionID
	if err := foldParent(ctx, store, parent, conv, depth+1); err != nil {
		return err
	}
	return store.LoadRange(ctx, parent, 1, created.ForkedFromSeq, func(e event.Event) error {
		if e.Kind == event.MessageDelta {
			return nil
		}
		return conv.Apply(e)
	})
}

func (s *session) finishRecovery(ctx actor.Context, m *recovered) {
	s.cancelLoad()
	s.cancelLoad = nil
	if m.err != nil {
		// An unreadable log is not something this incarnation can serve
		// around: fail, and let the supervisor retry with backoff.
		panic(m.err)
	}
	s.recovering = false
	if m.reason != "" && !m.failed {
		s.fail(ctx, "inconsistent log: "+m.reason)
		return
	}
	s.f, s.missing, s.failed, s.failReason = m.fold, m.missing, m.failed, m.reason
	s.committed = s.f.st.LastSeq
	s.snap.seq, s.snap.size = m.from, m.snapSize
	s.metaDirty = s.f.st.Created && !s.failed
	if s.metaDirty {
		s.sendAppend(ctx, nil) // record the session live again
	}
	if s.cfg.OnLive != nil && s.f.st.Created && !s.failed {
		s.cfg.OnLive(s.cfg.ID, s.f.st.LastSeq)
	}
	if !s.failed {
		s.startMCP(ctx)
		s.closeInterrupted(ctx)
		s.ensureQueue(ctx)
	}
	s.touch()
	s.armIdle(ctx, s.cfg.idleAfter())
	buffered := s.buffered
	s.buffered = nil
	for _, p := range buffered {
		s.handle(ctx, p.sender, p.msg)
	}
	s.maybeSnapshot(ctx)
	s.requestPassivation(ctx, false)
}

func (s *session) handle(ctx actor.Context, sender *actor.PID, req Request) {
	s.handled++
	if err := s.unavailable(req); err != nil {
		s.refuse(ctx, sender, req, err)
		// Ask again: a request routed after the last ask made the
		// registry turn that one down.
		s.requestPassivation(ctx, false)
		return
	}
	if s.handleEngine(ctx, sender, req) {
		return
	}
	switch m := req.(type) {
	case *Create:
		s.create(ctx, sender, m)
		s.startMCP(ctx)
		s.ensureQueue(ctx)
	case *Append:
		s.append(ctx, sender, m.Events)
	case *Subscribe:
		s.subscribe(ctx, sender, m)
	case *Unsubscribe:
		if m.Subscription != nil {
			ctx.Stop(m.Subscription)
		}
	case *GetState:
		s.reply(ctx, sender, &StateReply{State: s.f.st})
	case *SetAttention:
		s.setAttention(ctx, sender, m)
	}
}

// unavailable says why this session cannot serve req at all: another
// process holds it, it failed, or it does not exist (and req does not
// create it).
func (s *session) unavailable(req Request) error {
	if s.held != nil {
		return &persistence.LeaseHeldError{Holder: *s.held}
	}
	if s.failed {
		if s.failReason != "" {
			return fmt.Errorf("%w: %s", ErrFailed, s.failReason)
		}
		return ErrFailed
	}
	if _, creating := req.(*Create); s.missing && !creating {
		return fmt.Errorf("%w: %s", ErrNotFound, s.cfg.ID)
	}
	return nil
}

// isUnavailable reports a refusal of unavailable (held, failed, not found),
// as opposed to a failure to serve: a queue edit hears the former as its
// target not found.
func isUnavailable(err error) bool {
	var held *persistence.LeaseHeldError
	return errors.Is(err, ErrFailed) || errors.Is(err, ErrNotFound) || errors.As(err, &held)
}

// refuse answers a request this session cannot serve with err, in the
// reply type the request expects.
func (s *session) refuse(ctx actor.Context, sender *actor.PID, req Request, err error) {
	var reply any
	switch req.(type) {
	case *Create, *Append, *ChangeSettings, *ImportHistory, *RecordBash:
		reply = &Appended{Err: err}
	case *Subscribe:
		reply = &Subscribed{Err: err}
	case *GetState:
		reply = &StateReply{Err: err}
	case *Prompt:
		reply = &queue.Enqueued{Err: err}
	case *Decide, *AbortRetry:
		reply = &run.DecideResult{Err: err}
	case *Compact:
		reply = &CompactReply{Err: err}
	case *QueueOp:
		reply = &queue.Result{Reason: "not_found"}
		if !isUnavailable(err) {
			reply = &queue.Result{Reason: "error", Err: err}
		}
	case *CancelRun:
		reply = &CancelRunReply{} // nothing runs here
	case *SetAttention:
		reply = &AttentionReply{Err: err}
	}
	if reply != nil {
		s.reply(ctx, sender, reply)
	}
}

func (s *session) create(ctx actor.Context, sender *actor.PID, m *Create) {
	if !s.missing {
		s.reply(ctx, sender, &Appended{Err: fmt.Errorf("%w: %s", ErrExists, s.cfg.ID)})
		return
	}
	d, err := event.NewDraft(event.SessionCreated, m.Created)
	if err != nil {
		s.reply(ctx, sender, &Appended{Err: err})
		return
	}
	s.missing = false
	s.append(ctx, sender, []event.Draft{d})
	if m.Created.ParentSessionID != "" {
		// A fork's history is its parent's: read it once the created event
		// is committed, serving nothing else meanwhile.
		s.recovering = true
		s.flush(ctx)
		ctx.Request(s.cfg.Writer, &storewriter.Drain{})
	}
}

// append validates a client's drafts, then commits them like the engine's.
func (s *session) append(ctx actor.Context, sender *actor.PID, drafts []event.Draft) {
	if len(drafts) == 0 {
		s.reply(ctx, sender, &Appended{FirstSeq: s.f.st.LastSeq + 1, LastSeq: s.f.st.LastSeq})
		return
	}
	for _, d := range drafts {
		if err := d.Validate(); err != nil {
			s.reply(ctx, sender, &Appended{Err: fmt.Errorf("append to %s: %w", s.cfg.ID, err)})
			return
		}
		if d.Kind == event.SessionCreated && (s.f.st.Created || len(drafts) > 1) {
			s.reply(ctx, sender, &Appended{Err: fmt.Errorf("append to %s: %s only opens a log", s.cfg.ID, d.Kind)})
			return
		}
	}
	s.commit(ctx, drafts, sender, nil)
}

// commit assigns seqs, folds the events in and sends them to the writer;
// to hears reply (default *Appended) once they are committed. Drafts from
// the engine are built from typed payloads and are not validated again.
func (s *session) commit(ctx actor.Context, drafts []event.Draft, to *actor.PID, reply any) {
	now := s.cfg.Now().UTC()
	first := s.f.st.LastSeq + 1
	evs := make([]event.Event, len(drafts))
	for i, d := range drafts {
		evs[i] = event.Event{SessionID: s.cfg.ID, Seq: first + int64(i), RecordedAt: now, Kind: d.Kind, Payload: d.Payload}
		wasInteractive := s.f.st.Interactive != nil && *s.f.st.Interactive
		used := s.f.st.ContextUsed
		if err := s.f.apply(evs[i], true); err != nil {
			// Unreachable for validated or engine-built drafts; a fold
			// that cannot read its own events must not go on serving.
			panic(fmt.Errorf("fold event %s: %w", d.Kind, err))
		}
		// A step's end changes the row only when the context use moves (an
		// external agent's steps report none).
		s.metaDirty = s.metaDirty || metaChanging(d.Kind) || used != s.f.st.ContextUsed ||
			(!wasInteractive && s.f.st.Interactive != nil && *s.f.st.Interactive)
	}
	s.uncommitted = append(s.uncommitted, evs...)
	if len(evs) > 0 {
		s.marks = append(s.marks, s.f.st.LastSeq)
	}
	if to != nil && len(evs) == 0 && s.f.st.LastSeq <= s.committed {
		// Nothing new and everything before is durable: no commit is coming
		// to answer a waiter, so answer now.
		s.reply(ctx, to, s.appendedReply(reply, first, s.f.st.LastSeq))
	} else if to != nil {
		s.waiters = append(s.waiters, waiter{first: first, last: s.f.st.LastSeq, to: to, reply: reply})
	}
	if len(evs) > 0 || s.metaDirty {
		s.queueAppend(ctx, evs)
	}
}

func (s *session) sendAppend(ctx actor.Context, evs []event.Event) {
	m := &storewriter.Append{SessionID: s.cfg.ID, Gen: s.gen, Epoch: s.epoch, Events: evs, ReplyTo: ctx.Self()}
	if s.metaDirty || !s.metaSent {
		meta := s.f.st.Meta(persistence.StatusLive)
		m.Meta = &meta
		s.metaDirty, s.metaSent = false, true
	}
	ctx.Send(s.cfg.Writer, m)
}

func (s *session) onCommitted(ctx actor.Context, m *storewriter.Committed) {
	if m.Gen != s.gen {
		return // an answer to an earlier incarnation
	}
	if m.Err != nil {
		s.commitFailed(ctx, m.Err)
		return
	}
	if m.LastSeq <= s.committed {
		return
	}
	s.committed = m.LastSeq
	n := 0
	for n < len(s.uncommitted) && s.uncommitted[n].Seq <= s.committed {
		n++
	}
	batch := s.uncommitted[:n:n]
	s.uncommitted = drop(s.uncommitted, n)
	s.publish(ctx, batch)
	k := 0
	for k < len(s.waiters) && s.waiters[k].last <= s.committed {
		w := s.waiters[k]
		s.reply(ctx, w.to, s.appendedReply(w.reply, w.first, w.last))
		k++
	}
	s.waiters = drop(s.waiters, k)
	s.maybeSnapshot(ctx)
	if len(s.uncommitted) == 0 {
		s.leaveIfUnwatched(ctx)
		s.drained(ctx)
	}
}

// publish hands committed events to the subscribers in the batches they
// were committed in (one per commit call), though one Append carried
// several: a subscriber sees the same batches, and so writes the same
// lines, however the session grouped its sends to the writer.
func (s *session) publish(ctx actor.Context, batch []event.Event) {
	k := 0
	for k < len(s.marks) && s.marks[k] <= s.committed {
		k++
	}
	marks := s.marks[:k]
	s.marks = drop(s.marks, k)
	if len(batch) == 0 || len(s.subs) == 0 {
		return
	}
	first := batch[0].Seq
	for start := 0; start < len(batch); {
		end := len(batch)
		for len(marks) > 0 {
			last := marks[0]
			marks = marks[1:]
			if i := int(last-first) + 1; i > start && i < end {
				end = i
				break
			}
		}
		msg := &Events{SessionID: s.cfg.ID, Events: batch[start:end:end]}
		for _, pid := range s.subs {
			ctx.Send(pid, msg)
		}
		start = end
	}
}

// drop removes the first n elements of xs. Once none is left it returns
// nil: the drained slice's array still holds the events (and their
// payloads), which an idle session must not keep alive.
func drop[T any](xs []T, n int) []T {
	if n >= len(xs) {
		return nil
	}
	return xs[n:]
}

// commitFailed: nothing uncommitted was written, so the state folded from
// it is wrong. Tell every waiter, in the reply it was promised, then fail:
// the supervisor (the sessions registry) restarts the session after a
// backoff that doubles per failure, and the new incarnation rebuilds
// everything, its turn included, from the store; the MaxFailures-th
// failure within its window stops the session (as failed, with this
// error as the reason, unless the failure was the store's own: a full
// disk is no fault of the session). Recovering in place, at once, made a
// store that refuses a session's writes (a damaged file whose log reads
// back short, so every seq the session takes collides) a loop: recover,
// resume the run, fail, recover, with a model call each time.
func (s *session) commitFailed(ctx actor.Context, err error) {
	s.log.Error("commit failed; restarting from the store", "error", err)
	for _, w := range s.waiters {
		werr := fmt.Errorf("commit %s seq %d-%d: %w", s.cfg.ID, w.first, w.last, err)
		s.reply(ctx, w.to, failedReply(w.reply, werr))
	}
	s.waiters = nil
	if errors.Is(err, persistence.ErrLeaseLost) {
		// Not the store failing: another process holds the session now.
		// Recovery finds it so and stops serving.
		s.startRecovery(ctx)
		return
	}
	if persistence.IsSeqConflict(err) {
		err = fmt.Errorf("the store already holds seqs the session took after %d, which its log did not read back (a damaged store?): %w", s.committed, err)
	}
	err = fmt.Errorf("commit session %s: %w", s.cfg.ID, err)
	// The restart ends the subscriptions anyway: their clients hear why.
	s.endSubscriptions(ctx, "the session stopped: "+err.Error())
	if s.drain.on {
		// It was stopping: a restart would forget that (and keep its
		// Kill waiting); the next wake recovers from the store as the
		// restart would have.
		ctx.Stop(ctx.Self())
		return
	}
	panic(err)
}

// fail stops serving the session for good, for what no retry mends (an
// inconsistent log): it records status failed with the reason, which the
// store keeps over later statuses and a new incarnation reads back, and
// answers every request, those waiting included, with ErrFailed and the
// reason. The session then passivates; nothing resumes, nothing retries.
func (s *session) fail(ctx actor.Context, reason string) {
	s.log.Error("session failed", "reason", reason)
	s.failed, s.failReason = true, reason
	for _, pid := range []*actor.PID{s.runPID, s.queuePID, s.agentPID} {
		if pid != nil {
			ctx.Stop(pid)
		}
	}
	s.runPID, s.turnRun, s.queuePID, s.resuming, s.agentPID = nil, "", nil, "", nil
	s.flush(ctx)
	ctx.Send(s.cfg.Writer, &storewriter.SetStatus{Change: persistence.StatusChange{
		SessionID: s.cfg.ID, Status: persistence.StatusFailed, Reason: reason,
	}})
	buffered := s.buffered
	s.buffered = nil
	for _, p := range buffered {
		s.handle(ctx, p.sender, p.msg)
	}
	s.requestPassivation(ctx, false)
}

// failedReply is the answer a waiter was promised (nil: *Appended),
// carrying err instead: its write failed. A promise left unanswered would
// leave its client waiting out its timeout with no cause.
func failedReply(promised any, err error) any {
	switch r := promised.(type) {
	case *AttentionReply:
		return &AttentionReply{Err: err}
	case *queue.Enqueued:
		return &queue.Enqueued{MessageID: r.MessageID, Err: err}
	case *queue.Result:
		return &queue.Result{Reason: "error", MessageID: r.MessageID, Err: err}
	default:
		return &Appended{Err: err}
	}
}

// requestPassivation asks the parent to stop this session when it has no
// work and no subscriber: after idling (idle), or at once when there is
// nothing to serve (no such session, or a failed one).
func (s *session) requestPassivation(ctx actor.Context, idle bool) {
	if s.held != nil {
		// Another process owns the session: nothing here may go on, not
		// even a turn of this process that lost the lease.
		s.askToPassivate(ctx)
		return
	}
	if s.recovering || len(s.subs) > len(s.weak) || len(s.uncommitted) > 0 || len(s.waiters) > 0 || s.turnRun != "" || s.f.st.Queued > 0 {
		return
	}
	if !idle && !s.missing && !s.failed {
		return
	}
	s.askToPassivate(ctx)
}

// leaveIfUnwatched lets a session that is not interactive (piped, cat's)
// go cold once its last client has left and it has nothing left to do, as
// Hydra does, not after the idle timeout: nobody will come back to it. It
// is asked when a client leaves and again when a run ends, a commit lands
// or a request is handled, since the last client often leaves while the
// run it asked for is still closing, and the registry drops a request to
// passivate that a later request overtook.
func (s *session) leaveIfUnwatched(ctx actor.Context) {
	if s.f.st.Interactive == nil || *s.f.st.Interactive || len(s.subs) > len(s.weak) {
		return
	}
	s.requestPassivation(ctx, true)
}

func (s *session) askToPassivate(ctx actor.Context) {
	if ctx.Parent() != nil {
		ctx.Send(ctx.Parent(), &PassivateRequest{SessionID: s.cfg.ID, Handled: s.handled})
	}
}

// recordCold marks the session cold as it stops (passivation or shutdown).
// The store keeps a failed status over it: a session stopped by its
// supervisor was marked failed first.
func (s *session) recordCold(ctx actor.Context) {
	if !s.f.st.Created || s.failed {
		return
	}
	ctx.Send(s.cfg.Writer, &storewriter.SetStatus{Change: persistence.StatusChange{
		SessionID: s.cfg.ID, Status: persistence.StatusCold,
	}})
}

func (s *session) reply(ctx actor.Context, to *actor.PID, msg any) {
	if to != nil {
		ctx.Send(to, msg)
	}
}

// childStopped notices a queue or turn that stopped on its own (a crash
// past its restarts); the session restarts itself to rebuild them.
func (s *session) childStopped(ctx actor.Context, who *actor.PID) {
	if s.stopping {
		return
	}
	switch {
	case s.queuePID != nil && who.Equal(s.queuePID):
		s.queuePID = nil
		s.ensureQueue(ctx)
	case s.agentPID != nil && who.Equal(s.agentPID):
		s.agentPID = nil
		if s.runPID == nil || !who.Equal(s.runPID) {
			return
		}
		run := s.turnRun
		s.runPID, s.turnRun = nil, ""
		if s.f.run.runID == run {
			s.closeInterrupted(ctx)
		}
	case s.runPID != nil && who.Equal(s.runPID):
		run := s.turnRun
		s.runPID, s.turnRun = nil, ""
		if s.f.run.runID == run {
			// The turn died without ending its run: close it as a crash would.
			s.closeInterrupted(ctx)
		}
	}
}

// appendedReply is the answer to a commit: the caller's own reply, or
// *Appended with the seqs.
func (s *session) appendedReply(reply any, first, last int64) any {
	if reply != nil {
		return reply
	}
	return &Appended{FirstSeq: first, LastSeq: last}
}
