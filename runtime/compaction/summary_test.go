package compaction

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/troupehq/troupe/runtime/llm"
)

var conversation = []llm.Message{
	{Role: llm.RoleUser, Content: "Fix the failing test in pkg/foo.", Images: []llm.Image{{MIMEType: "image/png", Data: "AAAA"}}},
	{Role: llm.RoleAssistant, Thinking: "Run the tests first.", Content: "Running the tests.", ToolCalls: []llm.ToolCall{
		{ID: "c1", Name: "bash", Arguments: `{"command":"go test ./pkg/foo"}`},
		{ID: "c2", Name: "read", Arguments: ` {"path":"pkg/foo/foo.go"} `},
	}},
	{Role: llm.RoleTool, ToolCallID: "c1", Content: "--- FAIL: TestFoo"},
	{Role: llm.RoleTool, ToolCallID: "c2", Content: "package foo"},
	{Role: llm.RoleTool, ToolCallID: "unknown", Content: "stray"},
	{Role: llm.RoleAssistant, Content: "   "},
}

func TestSummaryRequest(t *testing.T) {
	tests := []struct {
		name         string
		msgs         []llm.Message
		previous     string
		instructions string
		contains     []string
		excludes     []string
	}{
		{
			name: "first summary",
			msgs: conversation,
			contains: []string{
				"<conversation>\n[User]: Fix the failing test in pkg/foo.\n[image: image/png]\n\n",
				"[Assistant thinking]: Run the tests first.\n\n[Assistant]: Running the tests.\n\n",
				`[Assistant tool calls]: bash({"command":"go test ./pkg/foo"}); read({"path":"pkg/foo/foo.go"})`,
				"[Tool result bash]: --- FAIL: TestFoo",
				"[Tool result read]: package foo",
				"[Tool result]: stray\n</conversation>",
				"Write a structured checkpoint",
				"## Goal", "## Constraints & Preferences", "## Progress", "### Done", "### In Progress",
				"### Blocked", "## Key Decisions", "## Next Steps", "## Critical Context",
			},
			excludes: []string{"<previous-summary>", "PRESERVE everything", "Additional focus", "AAAA", "[Assistant]:    "},
		},
		{
			name:     "update of a previous summary",
			msgs:     conversation,
			previous: "  ## Goal\nFix TestFoo  \n",
			contains: []string{
				"</conversation>\n\n<previous-summary>\n## Goal\nFix TestFoo\n</previous-summary>\n\n",
				"are NEW messages", "PRESERVE everything", "## Critical Context",
			},
			excludes: []string{"Write a structured checkpoint"},
		},
		{
			name:         "custom instructions are appended",
			msgs:         conversation,
			instructions: " Focus on code changes \n",
			contains:     []string{"and error messages.\n\nAdditional focus: Focus on code changes"},
		},
		{
			name:         "blank instructions and previous summary are ignored",
			msgs:         conversation,
			previous:     " \n ",
			instructions: "\t",
			excludes:     []string{"<previous-summary>", "Additional focus"},
		},
		{
			name:         "update with instructions",
			msgs:         conversation[:1],
			previous:     "old",
			instructions: "keep the file list",
			contains:     []string{"<previous-summary>\nold\n</previous-summary>", "PRESERVE everything", "Additional focus: keep the file list"},
		},
		{
			name:     "nothing new to summarise",
			contains: []string{"<conversation>\n\n</conversation>"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SummaryRequest(tt.msgs, tt.previous, tt.instructions)
			if len(got) != 2 || got[0].Role != llm.RoleSystem || got[1].Role != llm.RoleUser {
				t.Fatalf("SummaryRequest roles = %v, want [system user]", roles(got))
			}
			if !strings.Contains(got[0].Content, "Do NOT continue the conversation") {
				t.Errorf("system prompt = %q", got[0].Content)
			}
			for _, m := range got {
				if len(m.ToolCalls) > 0 || m.ToolCallID != "" || len(m.Images) > 0 {
					t.Errorf("request message %+v needs native tool or image support", m)
				}
			}
			body := got[1].Content
			for _, s := range tt.contains {
				if !strings.Contains(body, s) {
					t.Errorf("request lacks %q\nin:\n%s", s, body)
				}
			}
			for _, s := range tt.excludes {
				if strings.Contains(body, s) {
					t.Errorf("request has %q\nin:\n%s", s, body)
				}
			}
		})
	}
}

func TestSummaryRequestTruncates(t *testing.T) {
	big := strings.Repeat("é", 1500) // after "x", every rune starts on an odd byte
	msgs := []llm.Message{
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "write", Arguments: `{"path":"a.go","content":"` + strings.Repeat("x", 3000) + `"}`}}},
		{Role: llm.RoleTool, ToolCallID: "c1", Content: "x" + big},
	}
	body := SummaryRequest(msgs, "", "")[1].Content
	if !strings.Contains(body, `write({"path":"a.go"`) || !strings.Contains(body, "more bytes truncated]") {
		t.Errorf("arguments not truncated with their start kept:\n%s", body[:200])
	}
	if !strings.Contains(body, "[... 1002 more bytes truncated]") {
		t.Errorf("result not cut back to a rune boundary (1999 of 3001 bytes kept)")
	}
	if !utf8.ValidString(body) {
		t.Errorf("request is not valid UTF-8")
	}
	if len(body) > 4*maxPartBytes+len(summaryPrompt)+200 {
		t.Errorf("request is %d bytes, want it capped", len(body))
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in    string
		limit int
		want  string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc\n\n[... 1 more bytes truncated]"},
		{"aé", 2, "a\n\n[... 2 more bytes truncated]"},
		{"", 0, ""},
	}
	for _, tt := range tests {
		if got := truncate(tt.in, tt.limit); got != tt.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tt.in, tt.limit, got, tt.want)
		}
	}
}

func roles(msgs []llm.Message) []llm.Role {
	out := make([]llm.Role, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, m.Role)
	}
	return out
}
