package rpc

import (
	"encoding/json"
	"testing"

	"github.com/troupehq/troupe/persistence/event"
)

// While stdout is behind, deltas are held and then shown as one, with the
// partial as it is by then; any other line first shows what was held.
func TestDeltasHeldWhileBehind(t *testing.T) {
	var lines []map[string]any
	f := newFold("s", fixedModels{})
	f.emit = func(b []byte) {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("not JSON: %s", b)
		}
		lines = append(lines, m)
	}
	behind := false
	f.behind = func() bool { return behind }
	seq := int64(0)
	apply := func(kind event.Kind, p any) {
		seq++
		f.Apply(mustEvent(t, seq, kind, p))
	}
	delta := func(channel, text string) {
		apply(event.MessageDelta, event.MessageDeltaPayload{RunID: "r", MessageID: "m", Channel: channel, Text: text})
	}
	apply(event.RunStarted, event.RunStartedPayload{RunID: "r"})
	apply(event.StepStarted, event.StepStartedPayload{RunID: "r", Step: 1, MessageID: "m"})
	delta(event.ChannelText, "a")
	behind = true
	delta(event.ChannelText, "b")
	delta(event.ChannelText, "c")
	n := len(lines)
	f.flushDeltas()
	if len(lines) != n+1 || shown(lines[n]) != "text_delta bc abc" {
		t.Fatalf("after the flush: %d new lines, last %q", len(lines)-n, shown(lines[len(lines)-1]))
	}
	delta(event.ChannelText, "d")
	delta(event.ChannelThinking, "e") // a new block: the held text first
	delta(event.ChannelThinking, "f")
	apply(event.MessageCompleted, event.MessageCompletedPayload{RunID: "r", MessageID: "m", Text: "abcd", Thinking: "ef"})
	var got []string
	for _, l := range lines[n+1:] {
		got = append(got, shown(l))
	}
	want := []string{"text_delta d abcd", "text_end  abcd", "thinking_start  ", "thinking_delta ef ef", "thinking_end  ef"}
	if len(got) != len(want) {
		t.Fatalf("lines %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("lines %q, want %q", got, want)
		}
	}
}

// shown is a message_update as "event delta text-of-its-last-block".
func shown(l map[string]any) string {
	ev, _ := l["assistantMessageEvent"].(map[string]any)
	if ev == nil {
		return l["type"].(string)
	}
	content := ev["partial"].(map[string]any)["content"].([]any)
	last := content[len(content)-1].(map[string]any)
	text, _ := last["text"].(string)
	if th, ok := last["thinking"].(string); ok {
		text = th
	}
	d, _ := ev["delta"].(string)
	return ev["type"].(string) + " " + d + " " + text
}
