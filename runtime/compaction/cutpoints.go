package compaction

import "github.com/troupehq/troupe/runtime/llm"

// validCuts reports, for each index, whether the kept part may start there:
// not at a tool result, and not anywhere between an assistant message and
// the last result answering one of its calls, because providers reject a
// tool result whose call is missing and a call whose result is missing.
func validCuts(entries []Entry) []bool {
	// blocked[k] counts the call-to-result spans covering k, built as a
	// difference array so the pass stays linear however far apart a call
	// and its result are.
	diff := make([]int, len(entries)+1)
	caller := map[string]int{} // call ID -> newest assistant index that made it
	lastCaller := -1
	for j, e := range entries {
		m := e.Message
		if m.Role == llm.RoleAssistant && len(m.ToolCalls) > 0 {
			lastCaller = j
			for _, c := range m.ToolCalls {
				caller[c.ID] = j
			}
		}
		if m.Role != llm.RoleTool {
			continue
		}
		owner, ok := caller[m.ToolCallID]
		if !ok || m.ToolCallID == "" {
			// A result with an unknown ID is taken to answer the latest
			// calls, which is where a positional protocol would put it.
			owner = lastCaller
		}
		if owner < 0 {
			owner = j - 1 // an orphan pairs with nothing; only its own index is blocked
		}
		diff[owner+1]++
		diff[j+1]--
	}

	valid := make([]bool, len(entries))
	blocked := 0
	for k := range entries {
		blocked += diff[k]
		valid[k] = blocked == 0 && entries[k].Message.Role != llm.RoleTool
	}
	return valid
}
