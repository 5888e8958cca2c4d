package session

import (
	"fmt"
	"time"

	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
)

// ImportedOutput is what the model is told of a tool call an imported log
// left running: it ran, if at all, on the machine the bundle came from.
const ImportedOutput = "Interrupted: this tool call was still running when its session was exported. " +
	"It was not run here; check its effects before relying on them."

// importedRunError ends a run an imported log left in flight.
const importedRunError = "interrupted: the run was in flight in the imported bundle; it is not resumed"

// Sealed is what closing an imported log adds to it, and what the log is
// then.
type Sealed struct {
	// Drafts close what the log left open, in order, to be appended
	// after it.
	Drafts []event.Draft
	// Run is the run the log left in flight, "" when none was.
	Run string
	// Cancelled are the queued prompts the log left waiting.
	Cancelled []string
	// Meta is the snapshot row of the log with Drafts folded in (cold).
	Meta persistence.SessionMeta
}

// SealImport folds an imported log (session.created at seq 1, then the
// rest in order) and closes what it left open, so that hosting the session
// starts nothing: a run in flight ends as a crash recovery under the stop
// policy would end it (its step closed, its open tool calls interrupted and
// never run, run.interrupted, run.ended) but without signalling anything,
// since the log's process groups are another machine's; and prompts left
// waiting are cancelled, since the queue would start a run for the first
// of them. The drafts are what the session would have written; the caller
// appends them to the log before anything can host it.
func SealImport(id string, log []event.Event, now time.Time) (Sealed, error) {
	var out Sealed
	f := fold{st: State{ID: id}}
	for _, e := range log {
		if err := f.apply(e, false); err != nil {
			return out, fmt.Errorf("seal import %s: fold seq %d: %w", id, e.Seq, err)
		}
	}
	if err := f.foldDeltas(); err != nil {
		return out, fmt.Errorf("seal import %s: %w", id, err)
	}
	add := func(kind event.Kind, p any) error {
		d, err := event.NewDraft(kind, p)
		if err != nil {
			return fmt.Errorf("seal import %s: %w", id, err)
		}
		out.Drafts = append(out.Drafts, d)
		return nil
	}
	var errs []error
	if r := &f.run; r.runID != "" {
		out.Run = r.runID
		drafts, _, err := r.cutDrafts(ImportedOutput, event.CrashStop)
		if err != nil {
			return out, fmt.Errorf("seal import %s: %w", id, err)
		}
		out.Drafts = drafts
		errs = append(errs, add(event.RunEnded, event.RunEndedPayload{RunID: r.runID, StopReason: event.StopCancelled, Error: importedRunError}))
	}
	// Copied first: each cancellation folded below removes its entry.
	for _, p := range append([]event.Prompt(nil), f.queue.Waiting.Entries()...) {
		out.Cancelled = append(out.Cancelled, p.MessageID)
		errs = append(errs, add(event.PromptCancelled, event.PromptChangedPayload{MessageID: p.MessageID,
			Reason: "imported: a prompt waiting in a bundle is not run"}))
	}
	for _, err := range errs {
		if err != nil {
			return out, err
		}
	}
	seq := f.st.LastSeq
	for _, d := range out.Drafts {
		seq++
		if err := f.apply(event.Event{SessionID: id, Seq: seq, RecordedAt: now, Kind: d.Kind, Payload: d.Payload}, true); err != nil {
			return out, fmt.Errorf("seal import %s: %w", id, err)
		}
	}
	if f.run.runID != "" || f.queue.Running != "" || f.queue.Waiting.Len() > 0 {
		// Unreachable: the drafts above end every run and prompt the fold knows.
		return out, fmt.Errorf("seal import %s: run %q still open after sealing", id, f.run.runID)
	}
	out.Meta = f.st.Meta(persistence.StatusCold)
	return out, nil
}
