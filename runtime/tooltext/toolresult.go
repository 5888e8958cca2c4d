package tooltext

import "strings"

// FinalAnswerRequest is the user message sent once max turns is reached,
// before the one last model call (spec section 7).
const FinalAnswerRequest = "You have reached the maximum number of turns. Please provide your final answer now."

// ToolResult is the outcome of one call, as the model will read it.
type ToolResult struct {
	Name    string
	Content string
}

// FormatResults renders a turn's results as the content of the single user
// message the spec sends back: "Tool results:\n\n[name] result", results
// separated by a blank line, in call order. An empty result reads "OK", as
// the spec's executor reports one.
func FormatResults(results []ToolResult) string {
	var b strings.Builder
	b.WriteString("Tool results:\n\n")
	for i, r := range results {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteByte('[')
		b.WriteString(r.Name)
		b.WriteString("] ")
		if r.Content == "" {
			b.WriteString("OK")
			continue
		}
		b.WriteString(r.Content)
	}
	return b.String()
}

// ErrorContent is how a failed tool reads to the model, following the
// spec's executor: "Error: " and the message.
func ErrorContent(err error) string { return "Error: " + err.Error() }
