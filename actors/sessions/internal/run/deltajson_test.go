package run

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/troupehq/troupe/persistence/event"
)

// TestEncodeDeltaIsJSONMarshal holds encodeDelta to encoding/json on
// awkward text (controls, HTML, quotes, invalid UTF-8, U+2028/9, astral
// runes) and on random bytes.
func TestEncodeDeltaIsJSONMarshal(t *testing.T) {
	texts := []string{
		"", "x", "hello, world", `"quoted" \back\slash`, "<b>&amp;</b>", "a\x00b\x01\x1f\x7f",
		"\b\f\n\r\t", "line\u2028sep\u2029", "é ü 日本 🎉", "bad \xff\xfe utf8 \xe2\x82", "\xed\xa0\x80 surrogate",
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		texts = append(texts, string(b))
	}
	for i, text := range texts {
		p := event.MessageDeltaPayload{RunID: "run-1", MessageID: "msg-<2>", Index: i - 3, Channel: event.ChannelText, Text: text}
		if i%3 == 0 {
			p.Channel, p.ToolCallID, p.ToolName = event.ChannelToolCallArgs, "call_"+text, "read&"+text
		}
		want, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := encodeDelta(p); !bytes.Equal(got, want) {
			t.Fatalf("text %q:\n got %s\nwant %s", text, got, want)
		}
	}
}

func BenchmarkEncodeDelta(b *testing.B) {
	p := event.MessageDeltaPayload{RunID: "msg-12", MessageID: "msg-13", Index: 41, Channel: event.ChannelText, Text: " token"}
	b.Run("json.Marshal", func(b *testing.B) {
		for b.Loop() {
			if _, err := json.Marshal(p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encodeDelta", func(b *testing.B) {
		for b.Loop() {
			encodeDelta(p)
		}
	})
}
