package session

import (
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
)

// importedLog builds a log from (kind, payload) pairs, session.created first.
func importedLog(t *testing.T, id string, pairs ...any) []event.Event {
	t.Helper()
	log := []event.Event{}
	add := func(kind event.Kind, p any) {
		d, err := event.NewDraft(kind, p)
		if err != nil {
			t.Fatal(err)
		}
		log = append(log, event.Event{SessionID: id, Seq: int64(len(log) + 1), RecordedAt: time.Now(), Kind: d.Kind, Payload: d.Payload})
	}
	add(event.SessionCreated, event.CreatedPayload{Cwd: "/work"})
	for i := 0; i < len(pairs); i += 2 {
		add(pairs[i].(event.Kind), pairs[i+1])
	}
	return log
}

func kinds(ds []event.Draft) []event.Kind {
	out := make([]event.Kind, len(ds))
	for i, d := range ds {
		out[i] = d.Kind
	}
	return out
}

// A log that ends inside a run, a step streaming and a tool call open, a
// prompt queued behind it, is closed as a recovery under the stop policy
// closes it, the queued prompt cancelled: nothing left to resume or start.
func TestSealImportClosesWhatTheLogLeftOpen(t *testing.T) {
	log := importedLog(t, "s",
		event.PromptQueued, event.PromptQueuedPayload{MessageID: "m1", Content: []event.Block{{Type: "text", Text: "go"}}, Delivery: event.DeliveryPrompt},
		event.RunStarted, event.RunStartedPayload{RunID: "m1"},
		event.StepStarted, event.StepStartedPayload{RunID: "m1", Step: 1, MessageID: "a1"},
		event.MessageCompleted, event.MessageCompletedPayload{RunID: "m1", MessageID: "a1", ToolCalls: []event.ToolCall{{ID: "c1", Name: "bash", Arguments: "{}"}}},
		event.StepEnded, event.StepEndedPayload{RunID: "m1", Step: 1, MessageID: "a1"},
		event.ToolStarted, event.ToolStartedPayload{RunID: "m1", ToolCallID: "c1", Name: "bash"},
		event.ToolProcess, event.ToolProcessPayload{RunID: "m1", ToolCallID: "c1", Pgid: 1},
		event.StepStarted, event.StepStartedPayload{RunID: "m1", Step: 2, MessageID: "a2"},
		event.MessageDelta, event.MessageDeltaPayload{RunID: "m1", MessageID: "a2", Channel: event.ChannelText, Text: "half"},
		event.PromptQueued, event.PromptQueuedPayload{MessageID: "m2", Content: []event.Block{{Type: "text", Text: "next"}}, Delivery: event.DeliveryPrompt},
	)
	sealed, err := SealImport("s", log, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	want := []event.Kind{event.MessageCompleted, event.StepEnded, event.ToolCompleted, event.RunInterrupted, event.RunEnded, event.PromptCancelled}
	if got := kinds(sealed.Drafts); len(got) != len(want) {
		t.Fatalf("drafts %v, want %v", got, want)
	} else {
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("drafts %v, want %v", got, want)
			}
		}
	}
	if sealed.Run != "m1" || len(sealed.Cancelled) != 1 || sealed.Cancelled[0] != "m2" {
		t.Fatalf("sealed: run %q, cancelled %v", sealed.Run, sealed.Cancelled)
	}
	var msg event.MessageCompletedPayload
	var tool event.ToolCompletedPayload
	var intr event.RunInterruptedPayload
	for _, d := range sealed.Drafts {
		e := event.Event{Kind: d.Kind, Payload: d.Payload}
		switch d.Kind {
		case event.MessageCompleted:
			_ = e.Decode(&msg)
		case event.ToolCompleted:
			_ = e.Decode(&tool)
		case event.RunInterrupted:
			_ = e.Decode(&intr)
		}
	}
	if msg.Text != "half" || tool.ToolCallID != "c1" || tool.Status != event.ToolInterrupted || intr.Policy != event.CrashStop {
		t.Fatalf("closing events: %+v %+v %+v", msg, tool, intr)
	}
	if sealed.Meta.ID != "s" || sealed.Meta.Status != persistence.StatusCold || sealed.Meta.Cwd != "/work" {
		t.Fatalf("meta %+v", sealed.Meta)
	}

	// Folded with its seal, the log leaves a recovery nothing to close.
	f := fold{st: State{ID: "s"}}
	for _, e := range log {
		if err := f.apply(e, false); err != nil {
			t.Fatal(err)
		}
	}
	for i, d := range sealed.Drafts {
		if err := f.apply(event.Event{SessionID: "s", Seq: int64(len(log) + i + 1), Kind: d.Kind, Payload: d.Payload}, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.foldDeltas(); err != nil {
		t.Fatal(err)
	}
	if f.run.runID != "" || len(f.run.open) != 0 || f.queue.Running != "" || f.queue.Waiting.Len() != 0 || f.st.ActiveRun != "" {
		t.Fatalf("after the seal: run %q open %v queue %q/%d", f.run.runID, f.run.open, f.queue.Running, f.queue.Waiting.Len())
	}
}

// A log whose run was interrupted with policy resume, and never ended, is
// still in flight: it is ended. A log with nothing open gets nothing.
func TestSealImportEndsAResumableRun(t *testing.T) {
	log := importedLog(t, "s",
		event.RunStarted, event.RunStartedPayload{RunID: "r"},
		event.RunInterrupted, event.RunInterruptedPayload{RunID: "r", Policy: event.CrashResume},
	)
	sealed, err := SealImport("s", log, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if got := kinds(sealed.Drafts); sealed.Run != "r" || len(got) != 2 || got[0] != event.RunInterrupted || got[1] != event.RunEnded {
		t.Fatalf("drafts %v for run %q", got, sealed.Run)
	}
	done := importedLog(t, "s",
		event.RunStarted, event.RunStartedPayload{RunID: "r"},
		event.RunEnded, event.RunEndedPayload{RunID: "r", StopReason: event.StopEndTurn},
	)
	if sealed, err = SealImport("s", done, time.Now()); err != nil || len(sealed.Drafts) != 0 || sealed.Run != "" {
		t.Fatalf("a closed log sealed with %v (%v)", kinds(sealed.Drafts), err)
	}
}
