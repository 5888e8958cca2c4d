package session

import (
	"encoding/json"
	"testing"

	"github.com/troupehq/troupe/persistence/event"
)

// Recovery decodes only the deltas of the last step: the earlier steps'
// are dropped undecoded when the next step starts (a corrupt one among
// them does not matter), and the last step's text and thinking are what a
// crash cut, for the message recovery closes it with.
func TestRecoveryFoldsTheLastStepsDeltasAlone(t *testing.T) {
	var evs []event.Event
	add := func(kind event.Kind, payload any) {
		b, err := json.Marshal(payload)
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, event.Event{Seq: int64(len(evs) + 1), Kind: kind, Payload: b})
	}
	delta := func(channel, text string) {
		add(event.MessageDelta, event.MessageDeltaPayload{RunID: "r", MessageID: "m", Channel: channel, Text: text})
	}
	add(event.RunStarted, event.RunStartedPayload{RunID: "r"})
	add(event.StepStarted, event.StepStartedPayload{RunID: "r", Step: 1, MessageID: "m1"})
	delta(event.ChannelText, "first ")
	delta(event.ChannelThinking, "pondered ")
	evs = append(evs, event.Event{Seq: int64(len(evs) + 1), Kind: event.MessageDelta, Payload: []byte(`{"text":`)})
	add(event.StepEnded, event.StepEndedPayload{RunID: "r", Step: 1})
	add(event.StepStarted, event.StepStartedPayload{RunID: "r", Step: 2, MessageID: "m2"})
	delta(event.ChannelText, "second ")
	delta(event.ChannelThinking, "mused")
	delta(event.ChannelText, "step")

	f := fold{st: State{ID: "s"}}
	for _, e := range evs {
		if err := f.apply(e, false); err != nil {
			t.Fatalf("seq %d: %v", e.Seq, err)
		}
	}
	if len(f.deltas) != 3 {
		t.Fatalf("recovery holds %d deltas back, want the last step's 3", len(f.deltas))
	}
	if err := f.foldDeltas(); err != nil {
		t.Fatal(err)
	}
	if string(f.run.text) != "second step" || string(f.run.thinking) != "mused" || f.run.stepMsgID != "m2" {
		t.Fatalf("the open step is %q with text %q, thinking %q", f.run.stepMsgID, f.run.text, f.run.thinking)
	}
	if f.st.LastSeq != int64(len(evs)) || f.deltas != nil {
		t.Fatalf("last seq %d of %d, %d deltas still held", f.st.LastSeq, len(evs), len(f.deltas))
	}
}

// BenchmarkRecoveryFold folds a recovered log of 200 runs of one step of
// 40 text deltas each, as a session's activation does.
func BenchmarkRecoveryFold(b *testing.B) {
	var evs []event.Event
	add := func(kind event.Kind, payload any) {
		p, err := json.Marshal(payload)
		if err != nil {
			b.Fatal(err)
		}
		evs = append(evs, event.Event{Seq: int64(len(evs) + 1), Kind: kind, Payload: p})
	}
	for r := range 200 {
		run := "run-" + string(rune('a'+r%26))
		add(event.RunStarted, event.RunStartedPayload{RunID: run})
		add(event.StepStarted, event.StepStartedPayload{RunID: run, Step: 1, MessageID: "m"})
		for range 40 {
			add(event.MessageDelta, event.MessageDeltaPayload{RunID: run, MessageID: "m", Channel: event.ChannelText, Text: "x "})
		}
		add(event.StepEnded, event.StepEndedPayload{RunID: run, Step: 1, MessageID: "m", FinishReason: "stop"})
		add(event.MessageCompleted, event.MessageCompletedPayload{RunID: run, MessageID: "m", Text: "x x x"})
		add(event.RunEnded, event.RunEndedPayload{RunID: run, StopReason: "end_turn"})
	}
	b.ResetTimer()
	for b.Loop() {
		f := fold{st: State{ID: "s"}}
		for _, e := range evs {
			if err := f.apply(e, false); err != nil {
				b.Fatal(err)
			}
		}
		if err := f.foldDeltas(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(evs)*b.N)/b.Elapsed().Seconds(), "events/s")
}
