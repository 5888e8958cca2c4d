package compaction

import "github.com/troupehq/troupe/runtime/llm"

// The heuristic matches pi's (chars/4, an image as 1200 tokens) so that
// thresholds tuned for pi behave the same here. It overestimates English
// prose and code a little, and overestimating is the safe side: compacting
// slightly early costs a summary, while compacting late overflows the window.
const (
	bytesPerToken = 4
	// messageOverheadTokens covers the role markers and separators a chat
	// template wraps around every message (about 4 in ChatML).
	messageOverheadTokens = 4
	imageTokens           = 1200
)

// Estimate returns a cheap estimate of the prompt tokens msgs occupy: for
// each message, the bytes of its content, thinking, tool calls (id, name and
// arguments) and tool call id divided by 4 and rounded up, plus 4 tokens of
// overhead and 1200 tokens per image.
//
// It counts bytes, not runes: for ASCII they are the same, and for scripts
// such as CJK, where one character is three bytes and often a token of its
// own, bytes/4 is the closer figure.
func Estimate(msgs []llm.Message) int {
	total := 0
	for _, m := range msgs {
		total += estimateMessage(m)
	}
	return total
}

// EstimateWithUsage is Estimate calibrated with a count the provider
// reported: knownTokens is what msgs[:knownPrefixLen] cost, for example the
// PromptTokens of the request that sent exactly those messages (which also
// covers the system prompt and tool definitions Estimate cannot see), and
// only the messages after the prefix are estimated. A prefix length out of
// range or a non-positive knownTokens means there is no usable figure, and
// the plain estimate is returned.
func EstimateWithUsage(msgs []llm.Message, knownPrefixLen, knownTokens int) int {
	if knownTokens <= 0 || knownPrefixLen < 0 || knownPrefixLen > len(msgs) {
		return Estimate(msgs)
	}
	return knownTokens + Estimate(msgs[knownPrefixLen:])
}

func estimateMessage(m llm.Message) int {
	n := len(m.Content) + len(m.Thinking) + len(m.ToolCallID)
	for _, c := range m.ToolCalls {
		n += len(c.ID) + len(c.Name) + len(c.Arguments)
	}
	tokens := (n + bytesPerToken - 1) / bytesPerToken
	return tokens + messageOverheadTokens + len(m.Images)*imageTokens
}
