package queue

import (
	"github.com/troupehq/troupe/persistence/event"
)

// Entry is one queued message.
type Entry struct {
	MessageID string
	Content   []event.Block
	Delivery  string
	Client    string
}

// State is the queue folded from the log: waiting entries in order, and the
// running prompt if any.
type State struct {
	Entries []Entry
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
	switch p := payload.(type) {
	case *event.PromptQueuedPayload:
		s.insert(Entry{MessageID: p.MessageID, Content: p.Content, Delivery: p.Delivery, Client: p.Client}, p.Position, p.AfterMessageID)
	case *event.PromptChangedPayload:
		switch e.Kind {
		case event.PromptCancelled:
			s.remove(p.MessageID)
		default:
			if i := s.index(p.MessageID); i >= 0 {
				s.Entries[i].Content = p.Content
			}
		}
	case *event.PromptDeliveredPayload:
		s.remove(p.MessageID)
	case *event.RunStartedPayload:
		s.remove(p.RunID)
		s.Running = p.RunID
	case *event.RunEndedPayload:
		if s.Running == p.RunID {
			s.Running = ""
		}
	}
}

// insert places e at the head, the tail, or right after another entry.
func (s *State) insert(e Entry, position, after string) {
	at := len(s.Entries)
	switch position {
	case "head":
		at = 0
	case "after":
		if i := s.index(after); i >= 0 {
			at = i + 1
		}
	}
	s.Entries = append(s.Entries, Entry{})
	copy(s.Entries[at+1:], s.Entries[at:])
	s.Entries[at] = e
}

func (s *State) index(id string) int {
	for i, e := range s.Entries {
		if e.MessageID == id {
			return i
		}
	}
	return -1
}

func (s *State) remove(id string) {
	if i := s.index(id); i >= 0 {
		s.Entries = append(s.Entries[:i], s.Entries[i+1:]...)
	}
}

// Clone copies the state for an actor to own.
func (s State) Clone() State {
	return State{Entries: append([]Entry(nil), s.Entries...), Running: s.Running}
}

// Pending counts entries waiting.
func (s *State) Pending() int { return len(s.Entries) }
