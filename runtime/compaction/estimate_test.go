package compaction

import (
	"strings"
	"testing"

	"github.com/troupehq/troupe/runtime/llm"
)

func TestEstimate(t *testing.T) {
	tests := []struct {
		name string
		msgs []llm.Message
		want int
	}{
		{"nil", nil, 0},
		{"empty message is overhead only", []llm.Message{{Role: llm.RoleUser}}, 4},
		{"four bytes is one token", []llm.Message{{Role: llm.RoleUser, Content: "abcd"}}, 1 + 4},
		{"rounds up", []llm.Message{{Role: llm.RoleUser, Content: "abcde"}}, 2 + 4},
		{"counts bytes not runes", []llm.Message{{Role: llm.RoleUser, Content: "日本語"}}, 3 + 4},
		{"thinking counts", []llm.Message{{Role: llm.RoleAssistant, Content: "abcd", Thinking: "efgh"}}, 2 + 4},
		{
			"tool call id, name and arguments count",
			[]llm.Message{{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "bash", Arguments: `{"a":1}`}}}},
			4 + 4, // 2+4+7 = 13 bytes
		},
		{"tool result id counts", []llm.Message{{Role: llm.RoleTool, ToolCallID: "c1", Content: "ok"}}, 1 + 4},
		{
			"image is a fixed amount",
			[]llm.Message{{Role: llm.RoleUser, Images: []llm.Image{{MIMEType: "image/png", Data: strings.Repeat("A", 100000)}}}},
			1200 + 4,
		},
		{
			"sums messages",
			[]llm.Message{{Role: llm.RoleUser, Content: "abcd"}, {Role: llm.RoleAssistant, Content: "abcdefgh"}},
			5 + 6,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Estimate(tt.msgs); got != tt.want {
				t.Errorf("Estimate = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestEstimateWithUsage(t *testing.T) {
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: "abcd"},           // 5
		{Role: llm.RoleAssistant, Content: "abcdefgh"},  // 6
		{Role: llm.RoleUser, Content: "abcdefghijkl"},   // 7
		{Role: llm.RoleAssistant, Content: "abcdefghi"}, // 7
	}
	plain := Estimate(msgs)
	tests := []struct {
		name        string
		prefixLen   int
		knownTokens int
		want        int
	}{
		{"prefix replaced by the reported count", 2, 1000, 1000 + 7 + 7},
		{"whole conversation known", 4, 1234, 1234},
		{"empty prefix: the count covers system prompt and tools", 0, 300, 300 + plain},
		{"no usage", 2, 0, plain},
		{"negative usage", 2, -5, plain},
		{"negative prefix", -1, 1000, plain},
		{"prefix longer than the conversation", 5, 1000, plain},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EstimateWithUsage(msgs, tt.prefixLen, tt.knownTokens); got != tt.want {
				t.Errorf("EstimateWithUsage(%d, %d) = %d, want %d", tt.prefixLen, tt.knownTokens, got, tt.want)
			}
		})
	}
}
