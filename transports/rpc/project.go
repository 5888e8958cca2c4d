package rpc

import (
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/projection"
)

// fold is one session seen through the protocol: the projection kit's view
// of it, and the projector that turns each event into protocol events and
// keeps what only this protocol shows (pi's messages, the turn being
// written, the streaming message kept encoded). emit is nil while history
// is replayed, which folds without writing.
type fold struct {
	projection.View
	models   modelView
	partials Partials

	messages []any // what the model sees, as pi messages: compaction applied
	stats    stats
	lastText *string

	runMsgs     []any
	turnOpen    bool
	turnMsg     *assistantMessage
	turnResults []any
	pendingUser []*userMessage
	asst        *streaming
	held        *assistantMessage
	shown       map[string]bool // calls whose tool_execution_start was written

	emit func(line []byte) // must copy line: the projector reuses it
	// behind says stdout is behind: a delta then waits in deferred, to be
	// merged into the next line (see meter).
	behind   func() bool
	deferred *streaming
	// merging: the deltas of a batch wait in deferred, to go out as one
	// line per run of deltas of one block (see deltas); merged says some
	// wait.
	merging, merged bool
	ending          bool // run.ended is being projected
	// onQueued and onRunEnded let the connection answer commands in event
	// order.
	onQueued     func(messageID string)
	onRunStarted func(messageID string) // a queued message was taken: its run started, or it joined one
	onRunEnded   func(runID string)
}

type stats struct {
	User, Assistant, ToolCalls, ToolResults int
}

// modelView names the model messages are attributed to and prices usage.
type modelView interface {
	current(set event.Settings) (provider, model string)
	price(provider, model string, u event.Usage) costJSON
}

func newFold(sessionID string, models modelView) *fold {
	return &fold{View: projection.View{SessionID: sessionID}, models: models, shown: map[string]bool{}}
}

func (f *fold) live() bool { return f.emit != nil }

// runID is the run under way, "" when idle.
func (f *fold) runID() string {
	if r := f.Run(); r != nil {
		return r.ID
	}
	return ""
}

func (f *fold) out(v any) {
	if f.emit == nil {
		return
	}
	b, err := marshal(v)
	if err != nil {
		return
	}
	f.write(b)
}

// write emits a line after any delta held back, which comes first.
func (f *fold) write(line []byte) {
	f.flushDeltas()
	f.emit(line)
}

// flushDeltas shows the deltas held back while stdout was behind.
func (f *fold) flushDeltas() {
	s := f.deferred
	if s == nil || f.emit == nil {
		return
	}
	f.deferred = nil
	s.showDelta(f)
}

// Apply folds one event in, projecting it when live. Deltas are the bulk
// of every log: the view decodes them only when they are shown.
func (f *fold) Apply(e event.Event) {
	f.Deltas = f.live()
	ch := f.View.Apply(e)
	if e.Kind == event.MessageDelta {
		if ch.Block != nil && f.asst != nil {
			f.asst.delta(f, ch.Block, ch.BlockOpened, ch.Delta.Text)
		}
		return
	}
	ts := e.RecordedAt.UnixMilli()
	switch p := ch.Payload.(type) {
	case *event.PromptQueuedPayload:
		if f.onQueued != nil && e.SessionID == f.SessionID {
			f.onQueued(p.MessageID)
		}
	case *event.RunStartedPayload:
		f.startRun()
		if f.onRunStarted != nil {
			f.onRunStarted(p.RunID)
		}
		f.deliver(ch.Delivered, ts)
	case *event.PromptDeliveredPayload:
		if f.onRunStarted != nil {
			f.onRunStarted(p.MessageID)
		}
		f.deliver(ch.Delivered, ts)
	case *event.StepStartedPayload:
		f.startStep(ch, p, ts)
	case *event.MessageCompletedPayload:
		f.completed(p, ts)
	case *event.StepEndedPayload:
		f.stepEnded(p)
	case *event.ToolStartedPayload:
		f.toolStarted(p.ToolCallID, p.Name, p.Arguments)
	case *event.ToolProgressPayload:
		f.toolProgress(ch, p)
	case *event.ToolCompletedPayload:
		f.toolCompleted(ch, p, ts)
	case *event.RetryPayload:
		f.abandon(ch, p, ts)
		f.retry(e.Kind, p)
		f.restart(ch, ts)
	case *event.CompactionPayload:
		f.compaction(e.Kind, p, ts)
	case *event.BashExecutedPayload:
		f.bash(e, p, ts)
	case *event.HistoryImportedPayload:
		f.imported(e, p, ts)
	case *event.RunEndedPayload:
		f.endRun(p)
	}
}

// resume shows a run that was already going when this connection started
// showing the session (continued after a crash, or started by another
// client): its start again, so its end has a beginning.
func (f *fold) resume() {
	if f.Run() == nil {
		return
	}
	f.out(typeOnly{Type: "agent_start"})
	if f.turnOpen {
		f.out(typeOnly{Type: "turn_start"})
	}
	f.shown = map[string]bool{}
	f.runMsgs = nil
}

// inherited ends what a fork's ancestors left open: a fork taken in the
// middle of a run starts idle, with nothing queued.
func (f *fold) inherited() {
	f.settle("")
	f.View.Inherit()
	f.runMsgs, f.turnOpen, f.turnMsg, f.turnResults = nil, false, nil, nil
	f.pendingUser, f.asst, f.held, f.deferred = nil, nil, nil, nil
	f.shown = map[string]bool{}
}
