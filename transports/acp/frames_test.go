package acp

import (
	"encoding/json"
	"testing"

	"github.com/troupehq/troupe/transports/acpupdate"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

// A hand-built chunk frame is byte for byte the marshalled one, whatever
// the text holds.
func TestChunkFrameEqualsMarshal(t *testing.T) {
	texts := []string{"", "z", "héllo ☃", "a\"b\\c", "<tag> & </tag>", "\n\r\t\b\f\x00\x1f\x7f", "bad \xff utf8 \xc3", "\u2028\u2029", "😀 emoji"}
	for _, text := range texts {
		for _, mid := range []string{"", "msg-1"} {
			want, err := json.Marshal(jsonrpc.NewNotification("session/update", &updateParams{
				SessionID: "s<1>",
				Update: &acpupdate.Chunk{SessionUpdate: "agent_message_chunk", Content: acpupdate.ContentBlock{Type: "text", Text: text},
					MessageID: acpupdate.EventID(42), Meta: acpupdate.MessageMeta(mid)},
				Meta: &updateMeta{Hydra: stamp{MessageID: acpupdate.EventID(42), RecordedAt: 1700000000123}},
			}))
			if err != nil {
				t.Fatal(err)
			}
			got := appendChunkFrame(nil, "s<1>", "agent_message_chunk", text, mid, 42, 1700000000123)
			if string(got) != string(want) {
				t.Errorf("text %q:\n got %s\nwant %s", text, got, want)
			}
		}
	}
}
