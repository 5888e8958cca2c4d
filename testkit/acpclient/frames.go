package acpclient

import (
	"fmt"
	"github.com/troupehq/troupe/transports/acpupdate"
	"strings"
	"testing"
)

// Chunks is the agent text the frames carry.
func Chunks(t testing.TB, fs []Frame) string {
	t.Helper()
	var b strings.Builder
	for _, f := range fs {
		if f.IsUpdate("agent_message_chunk") {
			b.WriteString(f.Update(t).Update.Content.Text)
		}
	}
	return b.String()
}

// Count is how many of the frames are updates of kind.
func Count(fs []Frame, kind string) int {
	n := 0
	for _, f := range fs {
		if f.IsUpdate(kind) {
			n++
		}
	}
	return n
}

// Anchor is an update's _meta hydra-acp messageId (ev-<seq>), "" when it
// has none. Only _meta is decoded: updates' content differs in shape
// (a chunk's is an object, a tool call's an array).
func Anchor(t testing.TB, f Frame) string {
	t.Helper()
	var u struct {
		Meta struct {
			Hydra struct {
				MessageID string `json:"messageId"`
			} `json:"hydra-acp"`
		} `json:"_meta"`
	}
	f.DecodeParams(t, &u)
	return u.Meta.Hydra.MessageID
}

// MessageSeq is an update's ev-<seq> anchor as a number; an update
// without one fails the test.
func MessageSeq(t testing.TB, f Frame) int64 {
	t.Helper()
	var n int64
	if _, err := fmt.Sscanf(Anchor(t, f), "ev-%d", &n); err != nil {
		t.Fatalf("messageId of %s: %v", f.Raw, err)
	}
	return n
}

// Position is where an update's anchor (its id) stands in the log; false
// for an update without one (the state a replay closes with).
func Position(t testing.TB, f Frame) (acpupdate.Position, bool) {
	t.Helper()
	id := Anchor(t, f)
	if id == "" {
		return acpupdate.Position{}, false
	}
	p, ok := acpupdate.ParseID(id)
	if !ok {
		t.Fatalf("messageId of %s is no update id", f.Raw)
	}
	return p, true
}

// RequireIncreasing checks the anchored updates' anchors strictly
// increase: nothing twice, nothing out of order. Updates without an
// anchor are passed over.
func RequireIncreasing(t testing.TB, fs []Frame) {
	t.Helper()
	last := acpupdate.Position{Seq: -1}
	for _, f := range fs {
		if f.Method != "session/update" {
			continue
		}
		p, ok := Position(t, f)
		if !ok {
			continue
		}
		if p.Compare(last) <= 0 {
			t.Fatalf("update %s after %+v: %s", Anchor(t, f), last, f.Raw)
		}
		last = p
	}
}
