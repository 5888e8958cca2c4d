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
	}
}

// Clone copies the state for an actor to own.
func (s State) Clone() State {
	return State{Waiting: s.Waiting.Clone(), Running: s.Running}
}

// Pending counts entries waiting.
func (s *State) Pending() int { return s.Waiting.Len() }
