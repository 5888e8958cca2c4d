package session

import (
	"encoding/json"
	"time"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/metrics"
)

// notePrompts remembers when each prompt was queued, by its message id
// (the id of the run it starts), for troupe_prompt_first_update_seconds;
// a prompt cancelled or delivered into a running turn starts no run of its
// own and is forgotten.
func (s *session) notePrompts(drafts []event.Draft) {
	for _, d := range drafts {
		switch d.Kind {
		case event.PromptQueued:
			var p event.PromptQueuedPayload
			if json.Unmarshal(d.Payload, &p) == nil && p.MessageID != "" {
				if s.promptAt == nil {
					s.promptAt = map[string]time.Time{}
				}
				s.promptAt[p.MessageID] = time.Now()
			}
		case event.PromptCancelled:
			var p event.PromptChangedPayload
			if json.Unmarshal(d.Payload, &p) == nil {
				delete(s.promptAt, p.MessageID)
			}
		case event.PromptDelivered:
			var p event.PromptDeliveredPayload
			if json.Unmarshal(d.Payload, &p) == nil {
				delete(s.promptAt, p.MessageID)
			}
		}
	}
}

// noteRunOutput observes the time from a run's prompt to its first
// streamed output (a message delta, or a tool call starting without one).
func (s *session) noteRunOutput(runID string, drafts []event.Draft) {
	at, ok := s.promptAt[runID]
	if !ok {
		return
	}
	for _, d := range drafts {
		switch d.Kind {
		case event.MessageDelta, event.MessageCompleted, event.ToolStarted:
			metrics.PromptFirstUpdateSeconds.Observe(time.Since(at).Seconds())
			delete(s.promptAt, runID)
			return
		case event.RunEnded:
			delete(s.promptAt, runID)
			return
		}
	}
}
