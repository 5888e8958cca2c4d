package acpupdate

import "testing"

func TestToolTitle(t *testing.T) {
	for name, want := range map[string]string{
		"bash":                       "bash",
		"hydra-acp-stdin__head":      "mcp__hydra-acp-stdin__head",
		"files__read_file":           "mcp__files__read_file",
		"mcp__hydra-acp-stdin__tail": "mcp__hydra-acp-stdin__tail", // already in Claude Code's form
		"":                           "",
	} {
		if got := ToolTitle(name); got != want {
			t.Errorf("ToolTitle(%q) = %q, want %q", name, got, want)
		}
	}
}
