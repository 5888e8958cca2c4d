package compaction

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/troupehq/troupe/runtime/llm"
)

// maxPartBytes caps each tool result and each tool call's arguments in the
// summary request: the summary needs what was done and found, not whole
// file contents, and uncapped they could overflow the window the request is
// meant to relieve. pi caps tool results at the same 2000 characters.
const maxPartBytes = 2000

// serialise renders msgs as labelled paragraphs ("[User]: ...").
func serialise(msgs []llm.Message) string {
	names := map[string]string{} // call ID -> tool name, to label results
	var parts []string
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleAssistant:
			parts = appendAssistant(parts, m, names)
		case llm.RoleTool:
			label := "[Tool result]: "
			if name := names[m.ToolCallID]; name != "" {
				label = "[Tool result " + name + "]: "
			}
			parts = appendPart(parts, label, truncate(withImages(m), maxPartBytes))
		case llm.RoleSystem:
			parts = appendPart(parts, "[System]: ", withImages(m))
		default:
			parts = appendPart(parts, "[User]: ", withImages(m))
		}
	}
	return strings.Join(parts, "\n\n")
}

func appendAssistant(parts []string, m llm.Message, names map[string]string) []string {
	parts = appendPart(parts, "[Assistant thinking]: ", m.Thinking)
	parts = appendPart(parts, "[Assistant]: ", withImages(m))
	if len(m.ToolCalls) == 0 {
		return parts
	}
	calls := make([]string, 0, len(m.ToolCalls))
	for _, c := range m.ToolCalls {
		names[c.ID] = c.Name
		calls = append(calls, c.Name+"("+truncate(strings.TrimSpace(c.Arguments), maxPartBytes)+")")
	}
	return appendPart(parts, "[Assistant tool calls]: ", strings.Join(calls, "; "))
}

// appendPart skips empty text, as a message with nothing to say tells the
// summariser nothing.
func appendPart(parts []string, label, text string) []string {
	text = strings.TrimSpace(text)
	if text == "" {
		return parts
	}
	return append(parts, label+text)
}

// withImages marks where images were, since their bytes cannot be sent as
// text but their presence can matter to the summary.
func withImages(m llm.Message) string {
	if len(m.Images) == 0 {
		return m.Content
	}
	var b strings.Builder
	b.WriteString(m.Content)
	for _, img := range m.Images {
		b.WriteString("\n[image: ")
		b.WriteString(img.MIMEType)
		b.WriteString("]")
	}
	return b.String()
}

// truncate keeps the first limit bytes of s, backing off to a rune boundary so
// the request stays valid UTF-8.
func truncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "\n\n[... " + strconv.Itoa(len(s)-cut) + " more bytes truncated]"
}
