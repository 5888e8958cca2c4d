package compaction

import (
	"strings"

	"github.com/troupehq/troupe/runtime/llm"
)

// pi's COMPACTION_SUMMARY_PREFIX and _SUFFIX: a session written by either
// implementation replays to the model identically.
const (
	summaryPrefix = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
	summarySuffix = "\n</summary>"
)

// Apply returns the conversation after compaction: the summary as a user
// message, wrapped as pi wraps it, followed by the kept messages in order.
// The summary is a user message because every provider accepts one first,
// and a system message mid-history is not portable. A blank summary is still
// wrapped, so the model learns that earlier history existed.
func Apply(summary string, kept []Entry) []llm.Message {
	out := make([]llm.Message, 0, len(kept)+1)
	out = append(out, llm.Message{
		Role:    llm.RoleUser,
		Content: summaryPrefix + strings.TrimSpace(summary) + summarySuffix,
	})
	for _, e := range kept {
		out = append(out, e.Message)
	}
	return out
}
