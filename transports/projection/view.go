package projection

import (
	"fmt"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/conversation"
)

// View is one session folded from its events. Projectors read its fields;
// only Apply and Inherit change them.
type View struct {
	// SessionID is the session shown. Events of other sessions (a fork's
	// ancestors) are folded too, but only its own count in LastSeq and set
	// Cwd, Title and ChildOf.
	SessionID string
	// Deltas folds message.delta events into the streaming message. Off, a
	// delta is not decoded and changes nothing but LastSeq.
	Deltas bool

	LastSeq  int64
	Settings event.Settings
	Cwd      string
	Title    string
	// ChildOf is the session a transformer spawned this one for.
	ChildOf string
	Pending event.Pending
	// Runs are the runs started and not ended, oldest first: one, unless a
	// log overlaps them.
	Runs []*Run
	// Usage adds up the usage of every ended run.
	Usage event.Usage
	// Compaction is the compaction under way (its compaction.started), nil
	// when none is.
	Compaction *event.CompactionPayload
	// Forks are the user messages a fork can start from, oldest first.
	Forks []ForkPoint

	delta event.MessageDeltaPayload // the last delta decoded; Change.Delta points here
}

// ForkPoint is a user message a fork can start from: the new session holds
// SessionID's log up to Seq, the event before the message joined.
type ForkPoint struct {
	EntryID   string // the conversation entry id
	Text      string
	SessionID string
	Seq       int64
}

// Change is what one event did to the View.
type Change struct {
	Event event.Event
	// Payload is the decoded payload; nil for a message.delta (see Delta)
	// and for an event that does not decode (a newer writer's kind).
	Payload any
	// Run is the run the event belongs to; for run.ended, the run it ended
	// (no longer in View.Runs).
	Run *Run
	// RunOpened: Run begins with this event, a run.started or the first
	// event seen of a run met in the middle (resumed after a crash, or shown
	// by a projector that started late).
	RunOpened bool
	Step      *Step     // the step the event belongs to
	Call      *ToolCall // the tool call the event is about
	// Delivered is the queued prompt a run.started or prompt.delivered
	// delivered, nil when none was pending.
	Delivered *event.Prompt
	// Delta is the folded delta, valid until the next Apply; nil when
	// deltas are not folded or this one did not decode.
	Delta *event.MessageDeltaPayload
	// Block is the streaming block the delta extended; nil when the delta
	// is of no open step's message or of an unknown channel.
	Block *Block
	// BlockOpened: the delta began Block (the channel or tool call
	// changed); the previous block is complete.
	BlockOpened bool
	// Abandoned, on a retry.started, is what the step's failed attempt
	// streamed: no longer the step's (Step.Blocks starts afresh), to be
	// ended or marked as cut off wherever it was shown.
	Abandoned []*Block
}

// Run returns the latest run under way, nil when the session is idle.
func (v *View) Run() *Run {
	if len(v.Runs) == 0 {
		return nil
	}
	return v.Runs[len(v.Runs)-1]
}

// RunByID returns the run id if it is under way.
func (v *View) RunByID(id string) *Run {
	for _, r := range v.Runs {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// Inherit ends what a fork's ancestors left open, after their events were
// folded: a fork starts idle, with nothing queued, at its own seq 0. Its
// settings, usage and fork points are the ancestors'.
func (v *View) Inherit() {
	v.Runs, v.Pending, v.LastSeq = nil, event.Pending{}, 0
}

// Apply folds one event in and says what it changed.
func (v *View) Apply(e event.Event) Change {
	if e.SessionID == v.SessionID && e.Seq > v.LastSeq {
		v.LastSeq = e.Seq
	}
	ch := Change{Event: e}
	if e.Kind == event.MessageDelta {
		if v.Deltas {
			v.foldDelta(&ch)
		}
		return ch
	}
	p, err := event.DecodePayload(e.Kind, e.Payload)
	if err != nil {
		return ch
	}
	ch.Payload = p
	switch p := p.(type) {
	case *event.CreatedPayload:
		v.Settings = v.Settings.Merge(p.Settings)
		if e.SessionID == v.SessionID {
			v.Cwd, v.Title, v.ChildOf = p.Cwd, p.Title, p.ChildOf
		}
	case *event.Settings:
		v.Settings = v.Settings.Merge(*p)
		if p.Title != nil {
			v.Title = *p.Title
		}
	case *event.PromptQueuedPayload, *event.PromptChangedPayload:
		v.Pending.Apply(e.Kind, p)
	case *event.RunStartedPayload:
		v.open(&ch, p.RunID)
		v.deliver(&ch, p)
	case *event.PromptDeliveredPayload:
		ch.Run = v.RunByID(p.RunID)
		v.deliver(&ch, p)
	case *event.RunEndedPayload:
		v.open(&ch, p.RunID)
		v.endRun(ch.Run, p)
	case *event.CompactionPayload:
		v.Compaction = nil
		if e.Kind == event.CompactionStarted {
			v.Compaction = p
		}
	case *event.HistoryImportedPayload:
		for i, h := range p.Messages {
			if h.Role == "user" {
				v.Forks = append(v.Forks, ForkPoint{EntryID: fmt.Sprintf("import-%d-%d", e.Seq, i), Text: h.Content, SessionID: e.SessionID, Seq: e.Seq - 1})
			}
		}
	default:
		v.foldRun(&ch, e.Kind, p)
	}
	return ch
}

// open finds the run id, opening it when it is new; "" is no run.
func (v *View) open(ch *Change, id string) {
	if id == "" {
		return
	}
	if r := v.RunByID(id); r != nil {
		ch.Run = r
		return
	}
	ch.Run, ch.RunOpened = &Run{ID: id}, true
	v.Runs = append(v.Runs, ch.Run)
}

func (v *View) deliver(ch *Change, p any) {
	pr, ok := v.Pending.Apply(ch.Event.Kind, p)
	if !ok {
		return
	}
	ch.Delivered = &pr
	text := conversation.UserMessage(pr.Content).Content
	v.Forks = append(v.Forks, ForkPoint{EntryID: pr.MessageID, Text: text, SessionID: ch.Event.SessionID, Seq: ch.Event.Seq - 1})
}

func (v *View) endRun(r *Run, p *event.RunEndedPayload) {
	v.Usage.Add(p.Usage)
	if r == nil {
		return
	}
	r.Ended = p
	for i, o := range v.Runs {
		if o == r {
			v.Runs = append(v.Runs[:i], v.Runs[i+1:]...)
			break
		}
	}
}

// foldDelta decodes a delta into the View's buffer (see decodeDelta) and
// extends the streaming message with it.
func (v *View) foldDelta(ch *Change) {
	d := &v.delta
	if decodeDelta(ch.Event.Payload, d) != nil {
		return
	}
	ch.Delta = d
	v.open(ch, d.RunID)
	if ch.Run == nil {
		return
	}
	st := ch.Run.Step
	if st == nil || st.MessageID != d.MessageID {
		return
	}
	ch.Step = st
	ch.Block, ch.BlockOpened = st.extend(d)
	if st.Attempt > 1 {
		d.MessageID = AttemptID(d.MessageID, st.Attempt)
	}
}

// AttemptID is the id the text of a message's attempt streams under where
// clients key text by message (ACP's acpMessageId): the message's own id
// for its first attempt, a new one for each retry's, so that a client
// shows a retried reply as a message of its own rather than appending it
// to the text the failed attempt left (which it cannot take back).
func AttemptID(id string, attempt int) string {
	if attempt <= 1 {
		return id
	}
	return fmt.Sprintf("%s-attempt-%d", id, attempt)
}

// StreamingID is AttemptID for a delta of message msgID of run runID, by
// the attempt the View saw the run's step reach.
func (v *View) StreamingID(runID, msgID string) string {
	if r := v.RunByID(runID); r != nil && r.Step != nil && r.Step.MessageID == msgID {
		return AttemptID(msgID, r.Step.Attempt)
	}
	return msgID
}
