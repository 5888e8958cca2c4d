package compaction

import (
	"strings"

	"github.com/troupehq/troupe/runtime/llm"
)

// SummaryRequest returns the messages to send to a model to summarise
// toSummarise: a system prompt, then one user message holding the
// conversation serialised as text, the previous summary when there is one,
// and the instruction to write (or, with a previous summary, to update) a
// summary with the sections Goal, Constraints & Preferences, Progress, Key
// Decisions, Next Steps and Critical Context. Non-blank instructions (the
// compact command's customInstructions) are appended as an additional focus.
//
// The conversation is text rather than native messages so that the model
// does not take it as a conversation to continue, and so that the request
// needs no tool definitions even when it contains tool calls.
func SummaryRequest(toSummarise []llm.Message, previousSummary string, instructions string) []llm.Message {
	previousSummary = strings.TrimSpace(previousSummary)
	instructions = strings.TrimSpace(instructions)

	var b strings.Builder
	b.WriteString("<conversation>\n")
	b.WriteString(serialise(toSummarise))
	b.WriteString("\n</conversation>\n\n")
	prompt := summaryPrompt
	if previousSummary != "" {
		b.WriteString("<previous-summary>\n")
		b.WriteString(previousSummary)
		b.WriteString("\n</previous-summary>\n\n")
		prompt = updatePrompt
	}
	b.WriteString(prompt)
	if instructions != "" {
		b.WriteString("\n\nAdditional focus: ")
		b.WriteString(instructions)
	}

	return []llm.Message{
		{Role: llm.RoleSystem, Content: systemPrompt},
		{Role: llm.RoleUser, Content: b.String()},
	}
}
