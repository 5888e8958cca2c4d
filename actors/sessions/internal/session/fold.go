package session

import (
	"fmt"

	"github.com/troupehq/troupe/actors/sessions/internal/queue"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/conversation"
	"github.com/troupehq/troupe/runtime/proc"
)

// fold is everything the session derives from its log: the metadata state,
// the conversation, the queue, and the progress of the active run. Each
// event is decoded once and handed to every part.
type fold struct {
	st    State
	conv  conversation.Conversation
	queue queue.State
	run   runTracker
	// deltas are the deltas recovery has read since the last step started,
	// not decoded yet (see apply).
	deltas []event.Event
}

// apply folds one event. Deltas are the bulk of the log and only their
// seq counts, but for the text of a step a crash cut: live ones are
// skipped, and recovery holds a step's back until the next step starts,
// which drops them (most never need decoding), or the log ends
// (foldDeltas).
func (f *fold) apply(e event.Event, live bool) error {
	if e.Kind == event.MessageDelta {
		f.st.LastSeq, f.st.UpdatedAt = e.Seq, e.RecordedAt
		if !live {
			f.deltas = append(f.deltas, e)
		}
		return nil
	}
	p, err := event.DecodePayload(e.Kind, e.Payload)
	if err != nil {
		return err
	}
	if e.Kind == event.StepStarted {
		clear(f.deltas)
		f.deltas = f.deltas[:0]
	}
	f.st.apply(e, p)
	f.conv.ApplyDecoded(e, p)
	f.queue.ApplyDecoded(e, p)
	f.run.apply(e, p)
	return nil
}

// foldDeltas folds the deltas recovery held back: the last step's.
func (f *fold) foldDeltas() error {
	for _, e := range f.deltas {
		p, err := event.DecodePayload(e.Kind, e.Payload)
		if err != nil {
			return fmt.Errorf("fold seq %d: %w", e.Seq, err)
		}
		f.run.apply(e, p)
	}
	f.deltas = nil
	return nil
}

// runTracker follows the active run closely enough to close it properly
// after a crash: which step was streaming, what it had said, which tool
// calls had started and not finished.
type runTracker struct {
	runID     string
	steps     int
	stepMsgID string
	// text and thinking gather the open step's deltas. Byte slices, not
	// strings.Builders: recovery builds a fold on a goroutine's stack and
	// the session copies it, and a Builder's pointer to itself would then
	// point into a dead stack (the GC dies on it: "bad pointer in Go heap").
	text, thinking []byte
	open           []openTool
	toolCats       map[string]string
	allowed        map[string]bool
	// interrupts counts the open run's run.interrupted events: how often a
	// restart has already resumed it (see maxResumes).
	interrupts int
	// inconsistent says why the log cannot be what a session wrote (the
	// first such event), for recovery to refuse it.
	inconsistent string
}

type openTool struct {
	id, name string
	proof    proc.Proof // of the process group it started, from tool.process
}

func (r *runTracker) apply(e event.Event, payload any) {
	if r.toolCats == nil {
		r.toolCats, r.allowed = map[string]string{}, map[string]bool{}
	}
	switch p := payload.(type) {
	case *event.RunStartedPayload:
		r.runID, r.steps, r.open, r.interrupts = p.RunID, 0, nil, 0
	case *event.RunInterruptedPayload:
		switch {
		case p.RunID == r.runID:
			r.interrupts++
		case r.inconsistent == "":
			// Only recovery writes it, and only for the open run: a log
			// interrupting another one was read back without its end and
			// resumed (a damaged store), or was not written by a session.
			r.inconsistent = fmt.Sprintf("seq %d interrupts run %s, which the log does not show running", e.Seq, p.RunID)
		}
	case *event.RunEndedPayload:
		if p.RunID == r.runID {
			r.runID, r.stepMsgID, r.open = "", "", nil
		}
	case *event.StepStartedPayload:
		r.steps = p.Step
		r.stepMsgID = p.MessageID
		r.text, r.thinking = r.text[:0], r.thinking[:0]
	case *event.StepEndedPayload:
		r.stepMsgID = ""
	case *event.MessageDeltaPayload:
		switch p.Channel {
		case event.ChannelText:
			r.text = append(r.text, p.Text...)
		case event.ChannelThinking:
			r.thinking = append(r.thinking, p.Text...)
		}
	case *event.ToolStartedPayload:
		r.open = append(r.open, openTool{id: p.ToolCallID, name: p.Name})
		r.toolCats[p.ToolCallID] = p.Category
	case *event.ToolProcessPayload:
		for i := range r.open {
			if r.open[i].id == p.ToolCallID && p.RunID == r.runID {
				r.open[i].proof = proc.Proof{PID: p.Pgid, Start: p.Start, Boot: p.Boot}
			}
		}
	case *event.ToolCompletedPayload:
		for i, o := range r.open {
			if o.id == p.ToolCallID {
				r.open = append(r.open[:i], r.open[i+1:]...)
				break
			}
		}
	case *event.PermissionResolvedPayload:
		if p.Outcome == event.PermissionAllowed && p.OptionID == "allow_always" {
			r.allowed[r.toolCats[p.ToolCallID]] = true
		}
	}
}
