package persistence

import (
	"encoding/json"

	"github.com/troupehq/troupe/persistence/event"
)

// lastPrompts passes a session's candidates on once the session's rows are
// all read, leaving out each prompt.queued or prompt.updated that a later
// prompt.updated of the same prompt replaced: an edit always follows what
// it edits in the log, so only the session's end says which text is last.
type lastPrompts struct {
	fn      func(event.Event) error
	session string
	held    []event.Event
	last    map[string]int64 // message id -> seq of its last edit
}

func (l *lastPrompts) add(e event.Event) error {
	if e.SessionID != l.session {
		if err := l.flush(); err != nil {
			return err
		}
		l.session = e.SessionID
	}
	if e.Kind == event.PromptUpdated {
		if id, ok := messageID(e); ok {
			if l.last == nil {
				l.last = map[string]int64{}
			}
			l.last[id] = e.Seq
		}
	}
	l.held = append(l.held, e)
	return nil
}

// flush passes the held session's candidates on, each prompt once: as
// queued when never edited, else as its last edit.
func (l *lastPrompts) flush() error {
	held, last := l.held, l.last
	l.held, l.last = nil, nil
	for _, e := range held {
		if e.Kind == event.PromptQueued || e.Kind == event.PromptUpdated {
			id, _ := messageID(e)
			if edit, ok := last[id]; ok && edit != e.Seq {
				continue
			}
		}
		if err := l.fn(e); err != nil {
			return err
		}
	}
	return nil
}

// messageID is the prompt a prompt.queued or prompt.updated event is of.
func messageID(e event.Event) (string, bool) {
	var p struct {
		MessageID string `json:"message_id"`
	}
	if json.Unmarshal(e.Payload, &p) != nil || p.MessageID == "" {
		return "", false
	}
	return p.MessageID, true
}
