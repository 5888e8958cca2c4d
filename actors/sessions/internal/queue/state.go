package queue

import (
	"github.com/troupehq/troupe/persistence/event"
)

// State is the queue folded from the log: the prompts waiting, in order
// (the same pending-prompt fold the conversation and the transports use),
// and the running prompt if any.
type State struct {
	Waiting event.Pending
	Running string
	Ended   Ended
}

// Apply folds one event in.
func (s *State) Apply(e event.Event) error {
	switch e.Kind {
	case event.PromptQueued, event.PromptUpdated, event.PromptCancelled, event.PromptAmended,
		event.PromptDelivered, event.RunStarted, event.RunEnded:
	default:
		return nil
	}
	p, err := event.DecodePayload(e.Kind, e.Payload)
	if err != nil {
		return err
	}
	s.ApplyDecoded(e, p)
	return nil
}

// ApplyDecoded is Apply for a payload the caller already decoded.
func (s *State) ApplyDecoded(e event.Event, payload any) {
	s.Waiting.Apply(e.Kind, payload)
	switch p := payload.(type) {
	case *event.RunStartedPayload:
		s.Running = p.RunID
	case *event.RunEndedPayload:
		if s.Running == p.RunID {
			s.Running = ""
		}
		s.Ended.add(p.RunID, p.StopReason == event.StopCancelled)
	case *event.PromptChangedPayload:
		if e.Kind == event.PromptCancelled {
			s.Ended.add(p.MessageID, true)
		}
	case *event.PromptDeliveredPayload:
		// Joined a run: it ends with that run's answer.
		s.Ended.add(p.MessageID, false)
	}
}

// Clone copies the state for an actor to own.
func (s State) Clone() State {
	return State{Waiting: s.Waiting.Clone(), Running: s.Running, Ended: s.Ended.Clone()}
}

// Pending counts entries waiting.
func (s *State) Pending() int { return s.Waiting.Len() }
