package persistence

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
)

// A prompt edited while it waited is a candidate as its last edit only:
// the text it replaced finds nothing, the edit finds it, an unedited
// prompt is passed as queued, and the sessions stay apart.
func TestSearchCandidatesPassAnEditedPromptAsItsLastEdit(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	ev := func(session string, seq int, kind event.Kind, payload string) event.Event {
		return event.Event{SessionID: session, Seq: int64(seq), RecordedAt: time.Now(), Kind: kind, Payload: json.RawMessage(payload)}
	}
	prompt := func(id, text string) string {
		return fmt.Sprintf(`{"message_id":%q,"content":[{"type":"text","text":%q}],"delivery":"prompt"}`, id, text)
	}
	edit := func(id, text string) string {
		return fmt.Sprintf(`{"message_id":%q,"content":[{"type":"text","text":%q}]}`, id, text)
	}
	batch := Batch{Metas: []SessionMeta{{ID: "a"}, {ID: "b"}}, Events: []event.Event{
		ev("a", 1, event.PromptQueued, prompt("m1", "first wording")),
		ev("a", 2, event.PromptQueued, prompt("m2", "kept wording")),
		ev("a", 3, event.PromptUpdated, edit("m1", "second wording")),
		ev("a", 4, event.PromptUpdated, edit("m1", "final wording")),
		ev("b", 1, event.PromptQueued, prompt("m1", "first wording")),
	}}
	if _, err := s.Commit(ctx, batch); err != nil {
		t.Fatal(err)
	}
	kinds := []event.Kind{event.PromptQueued, event.MessageCompleted}
	for q, want := range map[string][]string{
		"wording": {"a/2", "a/4", "b/1"},
		"first":   {"a/4", "b/1"}, // a's edit is passed, unmatched: the caller checks the text
		"final":   {"a/4"},
	} {
		var got []string
		err := s.SearchCandidates(ctx, q, kinds, nil, func(e event.Event) error {
			got = append(got, fmt.Sprintf("%s/%d", e.SessionID, e.Seq))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q: candidates %v, want %v", q, got, want)
		}
	}
}
