package compaction

import (
	"testing"

	"github.com/troupehq/troupe/runtime/llm"
)

func TestApply(t *testing.T) {
	kept := []Entry{
		{ID: "a2", Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "bash"}}}},
		{ID: "t2", Message: llm.Message{Role: llm.RoleTool, ToolCallID: "c1", Content: "ok"}},
	}
	tests := []struct {
		name    string
		summary string
		kept    []Entry
		want    string
	}{
		{
			name:    "summary then kept messages",
			summary: "## Goal\nFix TestFoo",
			kept:    kept,
			want:    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n## Goal\nFix TestFoo\n</summary>",
		},
		{
			name:    "surrounding space trimmed",
			summary: "\n  done \n\n",
			want:    "The conversation history before this point was compacted into the following summary:\n\n<summary>\ndone\n</summary>",
		},
		{
			name: "blank summary still marks the compaction",
			want: "The conversation history before this point was compacted into the following summary:\n\n<summary>\n\n</summary>",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Apply(tt.summary, tt.kept)
			if len(got) != len(tt.kept)+1 {
				t.Fatalf("Apply returned %d messages, want %d", len(got), len(tt.kept)+1)
			}
			if got[0].Role != llm.RoleUser || got[0].Content != tt.want {
				t.Errorf("summary message = %s %q, want user %q", got[0].Role, got[0].Content, tt.want)
			}
			for i, e := range tt.kept {
				m := got[i+1]
				if m.Role != e.Message.Role || m.Content != e.Message.Content || m.ToolCallID != e.Message.ToolCallID || len(m.ToolCalls) != len(e.Message.ToolCalls) {
					t.Errorf("message %d = %+v, want kept %+v", i+1, m, e.Message)
				}
			}
		})
	}
}
