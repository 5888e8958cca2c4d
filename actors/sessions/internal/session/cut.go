package session

import (
	"fmt"

	"github.com/troupehq/troupe/persistence/event"
)

// cutDrafts are the events that close what the open run r had under way
// when it was cut off (by a crash, or by an export): its streaming step's
// partial message and the step itself, then each tool call that started
// and never finished, completed as interrupted with output (what the model
// is told), then run.interrupted under policy. cut names those calls. A
// crash recovery and an import's seal both close a run so; what comes next
// (resume, run.ended) is theirs.
func (r *runTracker) cutDrafts(output string, policy string) (drafts []event.Draft, cut []string, err error) {
	add := func(kind event.Kind, p any) {
		if err != nil {
			return
		}
		var d event.Draft
		if d, err = event.NewDraft(kind, p); err != nil {
			err = fmt.Errorf("close run %s: %w", r.runID, err)
			return
		}
		drafts = append(drafts, d)
	}
	if r.stepMsgID != "" {
		add(event.MessageCompleted, event.MessageCompletedPayload{RunID: r.runID, MessageID: r.stepMsgID, Text: string(r.text), Thinking: string(r.thinking)})
		add(event.StepEnded, event.StepEndedPayload{RunID: r.runID, Step: r.steps, MessageID: r.stepMsgID, FinishReason: "interrupted"})
	}
	for _, o := range r.open {
		cut = append(cut, o.id)
		add(event.ToolCompleted, event.ToolCompletedPayload{RunID: r.runID, ToolCallID: o.id, Name: o.name, Status: event.ToolInterrupted, Output: output})
	}
	add(event.RunInterrupted, event.RunInterruptedPayload{RunID: r.runID, ToolCallIDs: cut, Policy: policy})
	return drafts, cut, err
}
