package session

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/samber/lo"
	"github.com/troupehq/troupe/actors/sessions/internal/queue"
	"github.com/troupehq/troupe/actors/sessions/internal/run"
	"github.com/troupehq/troupe/persistence/event"
)

// turnTokens are process-wide so that no two turns, across restarts of a
// session, share one.
var turnTokens atomic.Uint64

// ErrNoEngine answers prompts to a session hosted without an engine.
var ErrNoEngine = errors.New("this session has no engine to run prompts")

// Prompt queues a message; it runs when its turn comes (delivery prompt) or
// joins the running run (steer, follow_up). The reply is *queue.Enqueued,
// once the prompt is durable.
type Prompt struct {
	MessageID string // empty: one is made
	Content   []event.Block
	Delivery  string // prompt | steer | follow_up
	Position  string // head | tail | after
	After     string
	Client    string
	Ancillary bool // machine traffic: titles nothing, promotes nothing
}

// QueueOp carries *queue.CancelPrompt, *queue.UpdatePrompt or
// *queue.AmendPrompt; the reply is *queue.Result.
type QueueOp struct{ Op any }

// CancelRun aborts the running run; the reply is *CancelRunReply. The run's
// end arrives as run.ended.
type CancelRun struct{ Reason string }

// CancelRunReply answers CancelRun.
type CancelRunReply struct {
	RunID   string // empty when nothing was running
	Queued  int
	Running bool
}

// Decide answers a permission request; the reply is *run.DecideResult.
type Decide struct{ run.Decide }

// AbortRetry stops a pending automatic retry; the reply is *run.DecideResult.
type AbortRetry struct{}

// ChangeSettings records new settings; the reply is *Appended.
type ChangeSettings struct{ Settings event.Settings }

// ImportHistory adds messages to the conversation (a host's earlier
// history); the reply is *Appended.
type ImportHistory struct{ History event.HistoryImportedPayload }

// Compact summarises the older conversation now; the reply, once done, is
// *CompactReply. It is refused while a run is in progress.
type Compact struct{ Instructions string }

// CompactReply answers Compact.
type CompactReply struct {
	Summary          string
	FirstKeptEntryID string
	TokensBefore     int
	Err              error
}

// ErrBusy refuses what cannot happen while a run is in progress.
var ErrBusy = errors.New("a run is in progress")

// RecordBash records a user-run shell command for the model's next prompt;
// the reply is *Appended.
type RecordBash struct{ Bash event.BashExecutedPayload }

func (*Prompt) isRequest()         {}
func (*QueueOp) isRequest()        {}
func (*CancelRun) isRequest()      {}
func (*Decide) isRequest()         {}
func (*AbortRetry) isRequest()     {}
func (*ChangeSettings) isRequest() {}
func (*RecordBash) isRequest()     {}
func (*Compact) isRequest()        {}
func (*ImportHistory) isRequest()  {}

// handleEngine serves the engine's requests; ok is false for others.
func (s *session) handleEngine(ctx actor.Context, sender *actor.PID, req Request) bool {
	switch m := req.(type) {
	case *Prompt:
		if s.queuePID == nil {
			s.reply(ctx, sender, &queue.Enqueued{Err: ErrNoEngine})
			return true
		}
		if m.MessageID == "" {
			m.MessageID = s.cfg.Engine.NewID("msg")
		}
		ctx.RequestWithCustomSender(s.queuePID, &queue.Enqueue{
			Prompt:   event.Prompt{MessageID: m.MessageID, Content: m.Content, Delivery: m.Delivery, Client: m.Client, Ancillary: m.Ancillary},
			Position: m.Position, After: m.After,
		}, sender)
	case *QueueOp:
		if s.queuePID == nil {
			s.reply(ctx, sender, &queue.Result{Reason: "no_engine"})
			return true
		}
		if a, ok := m.Op.(*queue.AmendPrompt); ok && a.NewID == "" {
			a.NewID = s.cfg.Engine.NewID("msg")
		}
		ctx.RequestWithCustomSender(s.queuePID, m.Op, sender)
	case *CancelRun:
		reply := &CancelRunReply{RunID: s.turnRun, Running: s.turnRun != "", Queued: s.f.st.Queued}
		switch {
		case s.runPID != nil:
			s.cancelled = s.turnRun
			ctx.Send(s.runPID, &run.Cancel{Reason: m.Reason})
		case s.mcp.deferred != "":
			s.cancelDeferred(ctx, m.Reason)
		case s.resuming != "":
			run := s.resuming
			s.resuming, s.turnRun = "", ""
			s.endUnstarted(ctx, run, m.Reason)
		}
		s.reply(ctx, sender, reply)
	case *Decide:
		s.toTurn(ctx, sender, &m.Decide)
	case *AbortRetry:
		s.toTurn(ctx, sender, &run.AbortRetry{})
		if s.runPID != nil {
			s.reply(ctx, sender, &run.DecideResult{})
		}
	case *ChangeSettings:
		s.changeSettings(ctx, sender, m.Settings)
	case *Compact:
		s.compact(ctx, sender, m.Instructions)
	case *ImportHistory:
		d, err := event.NewDraft(event.HistoryImported, m.History)
		if err != nil {
			s.reply(ctx, sender, &Appended{Err: err})
			return true
		}
		s.commit(ctx, []event.Draft{d}, sender, nil)
	case *RecordBash:
		d, err := event.NewDraft(event.BashExecuted, m.Bash)
		if err != nil {
			s.reply(ctx, sender, &Appended{Err: err})
			return true
		}
		s.commit(ctx, []event.Draft{d}, sender, nil)
	default:
		return false
	}
	return true
}

func (s *session) toTurn(ctx actor.Context, sender *actor.PID, msg any) {
	if s.runPID == nil {
		s.reply(ctx, sender, &run.DecideResult{Err: ErrNoRun})
		return
	}
	if _, isDecide := msg.(*run.Decide); isDecide {
		ctx.RequestWithCustomSender(s.runPID, msg, sender)
		return
	}
	ctx.Send(s.runPID, msg)
}

func (s *session) changeSettings(ctx actor.Context, sender *actor.PID, set event.Settings) {
	d, err := event.NewDraft(event.SessionSettingsChanged, set)
	if err != nil {
		s.reply(ctx, sender, &Appended{Err: err})
		return
	}
	s.commit(ctx, []event.Draft{d}, sender, nil)
	if s.runPID != nil && set.ApprovalMode != nil {
		ctx.Send(s.runPID, &run.SetMode{Mode: *set.ApprovalMode})
	} else if s.agentPID != nil && set.ApprovalMode != nil {
		// An external agent hears of a mode change between turns too.
		ctx.Send(s.agentPID, &run.SetMode{Mode: *set.ApprovalMode})
	}
	if re := s.reconfigure(set); s.runPID != nil && re != nil {
		ctx.Send(s.runPID, re)
	}
	if s.queuePID != nil && (set.SteeringMode != nil || set.FollowUpMode != nil) {
		ctx.Send(s.queuePID, &queue.SetModes{Steering: lo.FromPtr(set.SteeringMode), FollowUp: lo.FromPtr(set.FollowUpMode)})
	}
}

// onEngineMessage handles what the queue and the turn send; ok is false
// for other messages.
func (s *session) onEngineMessage(ctx actor.Context, msg any) bool {
	switch m := msg.(type) {
	case *run.Emit:
		if m.Token == s.turnToken {
			s.noteRunOutput(m.RunID, m.Events)
			s.notePrompts(m.Events)
			s.commit(ctx, m.Events, nil, nil)
			for _, d := range m.Events {
				if d.Kind == event.RunEnded {
					// Tell the queue now, in the same Receive that wrote the
					// event: a client that saw run.ended and then acts on the
					// queue must find the run over.
					var p event.RunEndedPayload
					_ = json.Unmarshal(d.Payload, &p)
					s.tellRunEnded(ctx, m.RunID, p.StopReason == event.StopCancelled)
				}
			}
		}
	case *run.Finished:
		if m.Token == s.turnToken && s.runPID != nil {
			if s.runPID != s.agentPID {
				ctx.Stop(s.runPID) // the agent outlives its turns
			}
			s.runPID, s.turnRun = nil, ""
			s.tellRunEnded(ctx, m.RunID, false) // told at its run.ended, if it wrote one
			s.runEndTold = ""
			if s.drain.on {
				// Stopping: what is queued stays queued for the next wake.
				s.drained(ctx)
				return true
			}
			if next := s.pendingStart; next != "" {
				s.pendingStart = ""
				s.startRun(ctx, next)
			}
			s.leaveIfUnwatched(ctx)
			if c := s.compactNext; c != nil {
				s.compactNext = nil
				s.compact(ctx, c.sender, c.msg.(*Compact).Instructions)
			}
		}
	case *run.Compacted:
		if m.Token != s.turnToken {
			return true
		}
		s.reply(ctx, s.compactTo, &CompactReply{Summary: m.Summary, FirstKeptEntryID: m.FirstKeptEntryID, TokensBefore: m.TokensBefore, Err: m.Err})
		s.compactTo = nil
	case *run.AllowCategory:
		// Recorded by the permission_resolved event the turn emitted.
	case *queue.Emit:
		drafts := s.promoted(m.Events)
		s.notePrompts(drafts)
		s.commit(ctx, drafts, m.ReplyTo, m.Reply)
	case *queue.StartRun:
		if s.drain.on {
			return true // stopping: the prompt stays queued for the next wake
		}
		s.startRun(ctx, m.MessageID)
	case *queue.CancelRun:
		if s.runPID != nil && s.turnRun == m.RunID {
			s.cancelled = s.turnRun
			ctx.Send(s.runPID, &run.Cancel{Reason: m.Reason})
		}
	default:
		return false
	}
	return true
}

func (s *session) startRun(ctx actor.Context, runID string) {
	if s.turnRun != "" {
		// A manual compaction, or a turn that has ended its run but not yet
		// stopped, holds the slot; the run starts when it is free.
		s.pendingStart = runID
		return
	}
	d, err := event.NewDraft(event.RunStarted, event.RunStartedPayload{RunID: runID})
	if err != nil {
		return
	}
	s.commit(ctx, []event.Draft{d}, nil, nil)
	s.startTurn(ctx, runID, 0)
}

func (s *session) spawnTurn(ctx actor.Context, runID string, startStep int) {
	if s.external() != "" {
		s.spawnAgentTurn(ctx, runID)
		return
	}
	if s.agentPID != nil {
		// Switched back to troupe's own engine: the agent's program ends.
		ctx.Stop(s.agentPID)
		s.agentPID, s.agentID = nil, ""
	}
	s.runPID = ctx.SpawnPrefix(run.Props(s.runConfig(ctx, runID, startStep)), "run")
	s.turnRun = runID
}

// compact runs a manual compaction as a turn of its own.
func (s *session) compact(ctx actor.Context, sender *actor.PID, instructions string) {
	if s.turnRun != "" && s.runEndTold == s.turnRun && s.compactNext == nil {
		// The run is over (run.ended is written) and its turn is finishing:
		// a client that saw the end must not be told a run is in progress.
		s.compactNext = &pendingRequest{sender: sender, msg: &Compact{Instructions: instructions}}
		return
	}
	if s.turnRun != "" || s.cfg.Engine == nil {
		s.reply(ctx, sender, &CompactReply{Err: ErrBusy})
		return
	}
	if s.external() != "" {
		s.reply(ctx, sender, &CompactReply{Err: ErrAgentOwns})
		return
	}
	cfg := s.runConfig(ctx, s.cfg.Engine.NewID("compact"), 0)
	cfg.CompactOnly, cfg.Instructions = true, instructions
	s.compactTo = sender
	s.runPID = ctx.SpawnPrefix(run.Props(cfg), "run")
	s.turnRun = cfg.RunID
}

func (s *session) runConfig(ctx actor.Context, runID string, startStep int) run.Config {
	eng := s.cfg.Engine
	st := s.f.st
	allowed := map[string]bool{}
	for k, v := range s.f.run.allowed {
		allowed[k] = v
	}
	retry := eng.Retry
	retry.Enabled = lo.FromPtrOr(st.Settings.AutoRetry, retry.Enabled)
	s.turnToken = turnTokens.Add(1)
	cfg := run.Config{
		SessionID: s.cfg.ID, RunID: runID, Token: s.turnToken, Session: ctx.Self(), Queue: s.queuePID,
		Resolve:      func(rctx context.Context) (run.Model, error) { return eng.Resolve(rctx, st) },
		Policy:       run.Policy{Mode: s.approvalMode(), Allowed: allowed, DenyUnapproved: eng.DenyUnapproved},
		Conversation: s.f.conv.Clone(),
		MaxSteps:     eng.MaxSteps, StartStep: startStep, Retry: retry,
		Cwd: st.Cwd, AllowedDirs: st.AdditionalDirs, SpillDir: eng.SpillDir, NewID: eng.NewID,
		Dispatcher: s.cfg.Dispatcher,
	}
	if key, id := s.cfg.ProcKey, s.cfg.ID; len(key) > 0 {
		cfg.Marker = func(call string) string { return toolMarker(key, id, runID, call) }
	}
	if eng.Tools != nil {
		cfg.Tools = eng.Tools(st)
	}
	if s.mcp.set != nil {
		cfg.ExtraTools = s.mcp.set.Tools
	}
	if eng.SystemPrompt != nil {
		cfg.SystemPrompt = eng.SystemPrompt(st)
	}
	cfg.Compaction = eng.Compaction
	cfg.Compaction.Enabled = lo.FromPtrOr(st.Settings.AutoCompaction, true)
	if member := s.cfg.Member; member != "" {
		resolve := cfg.Resolve
		cfg.Resolve = func(rctx context.Context) (run.Model, error) {
			if err := workspaceHere(st.Cwd, member); err != nil {
				return run.Model{}, err
			}
			return resolve(rctx)
		}
	}
	return cfg
}

// workspaceHere refuses a run whose workspace is not a directory on this
// member: a cluster places a session by its id, and tools run where the
// session is hosted, so a workspace that exists on another machine only
// (or no longer at all) is reported, never silently replaced. It runs in
// the run's resolver goroutine (a stat may hang on a network mount).
func workspaceHere(cwd, member string) error {
	if cwd == "" {
		return nil
	}
	fi, err := os.Stat(cwd)
	switch {
	case err != nil:
		return fmt.Errorf("the session's workspace %s is not on cluster member %s (%v): troupe does not run it elsewhere", cwd, member, err)
	case !fi.IsDir():
		return fmt.Errorf("the session's workspace %s on cluster member %s is not a directory", cwd, member)
	}
	return nil
}

func (s *session) ensureQueue(ctx actor.Context) {
	if s.cfg.Engine == nil || s.queuePID != nil || !s.f.st.Created || s.recovering {
		return
	}
	s.queuePID = ctx.SpawnPrefix(queue.Props(queue.Config{
		Session: ctx.Self(), State: s.f.queue.Clone(),
		Steering: lo.FromPtr(s.f.st.Settings.SteeringMode), FollowUp: lo.FromPtr(s.f.st.Settings.FollowUpMode),
	}), "queue")
}

// maxResumes bounds how often a restart resumes one run: a run whose
// resumption crashes troupe every time would otherwise call the model at
// every start, for ever. The next interruption ends it with an error.
const maxResumes = 3

// resumeRun is the session's note to itself that the events closing an
// interrupted run are committed: only then does the run resume, so that a
// store that cannot take them (a damaged file, a full disk) never gets a
// model call per attempt.
type resumeRun struct {
	gen   uint64
	runID string
	step  int
}

// closeInterrupted ends what a crash cut off: the open step's partial
// message, the tool calls that started and never finished (reported as
// interrupted, never run again), then resumes or stops the run per policy,
// resuming once these events are committed, and at most maxResumes times.
func (s *session) closeInterrupted(ctx actor.Context) {
	r := &s.f.run
	if s.cfg.Engine == nil || r.runID == "" {
		return
	}
	s.applyBufferedSettings(ctx)
	runID, steps := r.runID, r.steps
	for _, o := range r.open {
		s.killLeftover(runID, o) // whatever of it outlived the crash must not run on unseen
	}
	policy := cmp.Or(lo.FromPtr(s.f.st.Settings.CrashPolicy), event.CrashResume)
	if s.external() != "" {
		// An agent's turn cannot be resumed from troupe's log: the agent
		// holds its own state. The turn ends; the next prompt goes on.
		policy = event.CrashStop
	}
	exhausted := policy != event.CrashStop && r.interrupts >= maxResumes
	if exhausted {
		policy = event.CrashStop
	}
	drafts, cut, err := r.cutDrafts(InterruptedOutput, policy)
	if err != nil {
		panic(err) // plain payloads always marshal
	}
	add := func(kind event.Kind, p any) {
		if d, err := event.NewDraft(kind, p); err == nil {
			drafts = append(drafts, d)
		}
	}
	switch {
	case exhausted:
		add(event.RunEnded, event.RunEndedPayload{RunID: runID, StopReason: event.StopError, ErrorKind: "internal",
			Error: fmt.Sprintf("interrupted by a restart of troupe %d times; resumed %d times already, it is not resumed again", r.interrupts+1, maxResumes)})
	case policy == event.CrashStop:
		add(event.RunEnded, event.RunEndedPayload{RunID: runID, StopReason: event.StopCancelled, Error: "interrupted by a restart of troupe"})
	}
	s.log.Warn("run interrupted by a restart", "run", runID, "policy", policy, "tool_calls", len(cut), "resumed_before", r.interrupts)
	if policy == event.CrashStop {
		s.commit(ctx, drafts, nil, nil)
		return
	}
	// The run's slot is taken until the resume: a prompt the queue starts
	// meanwhile waits as pendingStart, a cancel ends the run unresumed.
	s.turnRun, s.resuming = runID, runID
	s.commit(ctx, drafts, ctx.Self(), &resumeRun{gen: s.gen, runID: runID, step: steps})
}

// onResumeRun resumes the run closeInterrupted closed, now that its events
// are committed; a failed commit never sends it.
func (s *session) onResumeRun(ctx actor.Context, m *resumeRun) {
	if m.gen != s.gen || s.resuming != m.runID || s.stopping || s.failed {
		return
	}
	s.resuming, s.turnRun = "", ""
	s.startTurn(ctx, m.runID, m.step)
}

// applyBufferedSettings serves the settings changes among the requests
// that arrived during recovery ahead of the others: a client that wakes a
// session to change its settings (troupe run --session ID --model M) means
// them for the run the recovery is about to resume, crash policy included.
func (s *session) applyBufferedSettings(ctx actor.Context) {
	rest := s.buffered[:0]
	for _, p := range s.buffered {
		if _, ok := p.msg.(*ChangeSettings); ok {
			s.handle(ctx, p.sender, p.msg)
			continue
		}
		rest = append(rest, p)
	}
	s.buffered = rest
}

// cancelDeferred ends a run whose turn never started.
func (s *session) cancelDeferred(ctx actor.Context, reason string) {
	run := s.mcp.deferred
	s.mcp.deferred, s.turnRun = "", ""
	s.endUnstarted(ctx, run, reason)
}

// endUnstarted ends run, whose turn never started, as cancelled, and
// starts the run that waited for its slot.
func (s *session) endUnstarted(ctx actor.Context, run, reason string) {
	if d, err := event.NewDraft(event.RunEnded, event.RunEndedPayload{RunID: run, StopReason: event.StopCancelled, Error: reason}); err == nil {
		s.commit(ctx, []event.Draft{d}, nil, nil)
	}
	if s.queuePID != nil {
		ctx.Send(s.queuePID, &queue.RunEnded{RunID: run, Cancelled: true})
	}
	if next := s.pendingStart; next != "" {
		s.pendingStart = ""
		s.startRun(ctx, next)
	}
}

// tellRunEnded tells the queue, once per run, that its run is over, and
// whether it was cancelled.
func (s *session) tellRunEnded(ctx actor.Context, runID string, cancelled bool) {
	if s.queuePID == nil || s.runEndTold == runID {
		return
	}
	s.runEndTold = runID
	ctx.Send(s.queuePID, &queue.RunEnded{RunID: runID, Cancelled: cancelled})
}
