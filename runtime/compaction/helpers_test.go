package compaction

import (
	"strings"
	"testing"

	"github.com/troupehq/troupe/runtime/llm"
)

// sized returns filler of the length that makes a message whose other
// counted fields total fixed bytes estimate to exactly tok tokens.
func sized(t testing.TB, tok, fixed int) string {
	t.Helper()
	n := bytesPerToken*(tok-messageOverheadTokens) - fixed
	if n < 0 {
		t.Fatalf("cannot build a %d-token message around %d fixed bytes", tok, fixed)
	}
	return strings.Repeat("x", n)
}

func user(t testing.TB, id string, tok int) Entry {
	return Entry{ID: id, Message: llm.Message{Role: llm.RoleUser, Content: sized(t, tok, 0)}}
}

// asst makes an assistant message calling "read" with "{}" once per call ID.
func asst(t testing.TB, id string, tok int, callIDs ...string) Entry {
	calls := make([]llm.ToolCall, 0, len(callIDs))
	fixed := 0
	for _, c := range callIDs {
		calls = append(calls, llm.ToolCall{ID: c, Name: "read", Arguments: "{}"})
		fixed += len(c) + len("read") + len("{}")
	}
	return Entry{ID: id, Message: llm.Message{Role: llm.RoleAssistant, Content: sized(t, tok, fixed), ToolCalls: calls}}
}

func result(t testing.TB, id, callID string, tok int) Entry {
	return Entry{ID: id, Message: llm.Message{Role: llm.RoleTool, ToolCallID: callID, Content: sized(t, tok, len(callID))}}
}

func ids(entries []Entry) []string {
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.ID)
	}
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
