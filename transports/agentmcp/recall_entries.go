package agentmcp

import (
	"strings"

	"github.com/troupehq/troupe/persistence/event"
)

// Entry is one item of a session's conversation as recall shows it.
type Entry struct {
	Index      int    `json:"entry"`
	Seq        int64  `json:"seq"`
	Role       string `json:"role"` // user | assistant | tool
	Text       string `json:"text,omitempty"`
	ToolName   string `json:"toolName,omitempty"`
	ToolCallID string `json:"toolCallId,omitempty"`
	Arguments  string `json:"arguments,omitempty"`
	Output     string `json:"output,omitempty"`
	Status     string `json:"status,omitempty"`
}

// history folds a log into its entries and remembers how many came before
// the last compaction that succeeded: those are what recall serves.
type history struct {
	entries   []Entry
	calls     map[string]int // tool call id -> entry index
	prompts   map[string]int // message id -> entry index, for its edits
	compacted int            // entries before the last compaction; -1: none yet
}

func newHistory() *history {
	return &history{calls: map[string]int{}, prompts: map[string]int{}, compacted: -1}
}

func (h *history) add(e event.Event) error {
	p, err := event.DecodePayload(e.Kind, e.Payload)
	if err != nil {
		return nil // recall shows what it can read
	}
	switch v := p.(type) {
	case *event.PromptQueuedPayload:
		h.prompts[v.MessageID] = len(h.entries)
		h.push(Entry{Seq: e.Seq, Role: "user", Text: blocksText(v.Content)})
	case *event.PromptChangedPayload:
		// An edit while it waited is the text the prompt was sent with.
		if i, ok := h.prompts[v.MessageID]; ok && e.Kind == event.PromptUpdated {
			h.entries[i].Text = blocksText(v.Content)
		}
	case *event.MessageCompletedPayload:
		if v.Text != "" {
			h.push(Entry{Seq: e.Seq, Role: "assistant", Text: v.Text})
		}
	case *event.ToolStartedPayload:
		h.calls[v.ToolCallID] = len(h.entries)
		h.push(Entry{Seq: e.Seq, Role: "tool", ToolName: v.Name, ToolCallID: v.ToolCallID, Arguments: v.Arguments})
	case *event.ToolCompletedPayload:
		if i, ok := h.calls[v.ToolCallID]; ok {
			h.entries[i].Output, h.entries[i].Status = v.Output, v.Status
		}
	case *event.HistoryImportedPayload:
		for _, m := range v.Messages {
			h.push(Entry{Seq: e.Seq, Role: m.Role, Text: m.Content, ToolName: m.ToolName, ToolCallID: m.ToolCallID})
		}
	case *event.CompactionPayload:
		if e.Kind == event.CompactionEnded && !v.Aborted && v.Error == "" {
			h.compacted = len(h.entries)
		}
	}
	return nil
}

func (h *history) push(e Entry) {
	e.Index = len(h.entries)
	h.entries = append(h.entries, e)
}

// before is the pre-compaction entries; ok is false before any compaction.
func (h *history) before() ([]Entry, bool) {
	if h.compacted < 0 {
		return nil, false
	}
	return h.entries[:h.compacted], true
}

func blocksText(bs []event.Block) string {
	var b strings.Builder
	for _, x := range bs {
		if x.Text != "" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(x.Text)
		}
	}
	return b.String()
}
