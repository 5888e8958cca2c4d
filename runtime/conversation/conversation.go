package conversation

import (
	"fmt"
	"strings"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/runtime/tooltext"
)

// Entry is one message with the id compaction refers to it by.
type Entry struct {
	ID      string
	Message llm.Message
}

// Origins of a tool call.
const (
	OriginNative = "native"
	OriginText   = "text"
)

// SummaryPrefix and SummarySuffix wrap a compaction summary in the user
// message that replaces the compacted history.
const (
	SummaryPrefix = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
	SummarySuffix = "\n</summary>"
)

// Conversation is the fold. The zero value is empty and ready.
type Conversation struct {
	entries []Entry
	pending event.Pending     // queued, not yet delivered
	origins map[string]string // tool call id -> origin
	names   map[string]string // tool call id -> tool name
	// textResults are results of text-origin calls of the current step;
	// they become one user message when the next message starts.
	textResults []tooltext.ToolResult
	textID      string
}

// Apply folds one event in; kinds that say nothing about the history are
// ignored.
func (c *Conversation) Apply(e event.Event) error {
	p, err := event.DecodePayload(e.Kind, e.Payload)
	if err != nil {
		return err
	}
	c.ApplyDecoded(e, p)
	return nil
}

// ApplyDecoded is Apply for a payload the caller already decoded.
func (c *Conversation) ApplyDecoded(e event.Event, payload any) {
	if c.origins == nil {
		c.origins, c.names = map[string]string{}, map[string]string{}
	}
	switch p := payload.(type) {
	case *event.PromptQueuedPayload, *event.PromptChangedPayload, *event.RunStartedPayload, *event.PromptDeliveredPayload:
		if pr, ok := c.pending.Apply(e.Kind, p); ok {
			c.flushText()
			c.add(pr.MessageID, UserMessage(pr.Content))
		}
	case *event.MessageCompletedPayload:
		c.flushText()
		c.add(p.MessageID, assistantMessage(p))
	case *event.ToolStartedPayload:
		c.origins[p.ToolCallID] = p.Origin
		c.names[p.ToolCallID] = p.Name
	case *event.ToolCompletedPayload:
		c.toolResult(p)
	case *event.StepStartedPayload:
		c.flushText()
		if p.Instruction != "" {
			c.add("instruction-"+p.MessageID, llm.Message{Role: llm.RoleUser, Content: p.Instruction})
		}
	case *event.RunEndedPayload:
		c.flushText()
	case *event.BashExecutedPayload:
		c.flushText()
		c.add(fmt.Sprintf("bash-%d", e.Seq), llm.Message{Role: llm.RoleUser, Content: BashMessage(p)})
	case *event.HistoryImportedPayload:
		c.flushText()
		for i, h := range p.Messages {
			c.add(fmt.Sprintf("import-%d-%d", e.Seq, i), importedMessage(h))
		}
	case *event.CompactionPayload:
		if e.Kind == event.CompactionEnded && p.Summary != "" && !p.Aborted && p.Error == "" {
			c.compact(p.Summary, p.FirstKeptEntryID)
		}
	}
}

func (c *Conversation) toolResult(p *event.ToolCompletedPayload) {
	out := ResultText(p)
	if c.origins[p.ToolCallID] == OriginText {
		if c.textID == "" {
			c.textID = "results-" + p.ToolCallID
		}
		c.textResults = append(c.textResults, tooltext.ToolResult{Name: p.Name, Content: out})
		return
	}
	c.add("result-"+p.ToolCallID, llm.Message{Role: llm.RoleTool, ToolCallID: p.ToolCallID, Content: out})
}

func (c *Conversation) flushText() {
	if len(c.textResults) == 0 {
		return
	}
	c.add(c.textID, llm.Message{Role: llm.RoleUser, Content: tooltext.FormatResults(c.textResults)})
	c.textResults, c.textID = nil, ""
}

func (c *Conversation) add(id string, m llm.Message) {
	c.entries = append(c.entries, Entry{ID: id, Message: m})
}

func (c *Conversation) compact(summary, firstKept string) {
	kept := c.entries
	for i, e := range c.entries {
		if e.ID == firstKept {
			kept = c.entries[i:]
			break
		}
	}
	next := make([]Entry, 0, len(kept)+1)
	next = append(next, Entry{ID: "summary-" + firstKept, Message: llm.Message{Role: llm.RoleUser, Content: SummaryPrefix + summary + SummarySuffix}})
	c.entries = append(next, kept...)
}

// Entries is the history so far, pending text results included. The slice
// is a copy; the messages share strings with the fold.
func (c *Conversation) Entries() []Entry {
	out := make([]Entry, len(c.entries), len(c.entries)+1)
	copy(out, c.entries)
	if len(c.textResults) > 0 {
		out = append(out, Entry{ID: c.textID, Message: llm.Message{Role: llm.RoleUser, Content: tooltext.FormatResults(c.textResults)}})
	}
	return out
}

// Messages is Entries without the ids.
func (c *Conversation) Messages() []llm.Message {
	es := c.Entries()
	out := make([]llm.Message, len(es))
	for i, e := range es {
		out[i] = e.Message
	}
	return out
}

// Pending reports whether a queued prompt with this id has not been delivered.
func (c *Conversation) Pending(messageID string) bool {
	return c.pending.Has(messageID)
}

// UserMessage turns prompt blocks into one user message: text blocks joined
// by blank lines, images attached, resources inlined as text.
func UserMessage(blocks []event.Block) llm.Message {
	m := llm.Message{Role: llm.RoleUser}
	var texts []string
	for _, b := range blocks {
		switch b.Type {
		case "image":
			m.Images = append(m.Images, llm.Image{MIMEType: b.MimeType, Data: b.Data})
		case "resource":
			texts = append(texts, fmt.Sprintf("<resource uri=%q>\n%s\n</resource>", b.URI, b.Text))
		default:
			texts = append(texts, b.Text)
		}
	}
	m.Content = strings.Join(texts, "\n\n")
	return m
}

func assistantMessage(p *event.MessageCompletedPayload) llm.Message {
	m := llm.Message{Role: llm.RoleAssistant, Content: p.Text, Thinking: p.Thinking}
	if p.Raw != "" {
		// Text-style replies go back as written, think and call blocks
		// included, so the model sees its own protocol.
		m.Content, m.Thinking = p.Raw, ""
	}
	for _, tc := range p.ToolCalls {
		m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments})
	}
	if c := p.Continuation; c != nil {
		m.Continuation = &llm.Continuation{Provider: c.API, Data: c.Data}
	}
	return m
}

// ResultText is what the model is told of a finished call.
func ResultText(p *event.ToolCompletedPayload) string {
	out := p.Output
	if p.FullOutputPath != "" && !strings.Contains(out, p.FullOutputPath) {
		out += "\n[full output: " + p.FullOutputPath + "]"
	}
	switch p.Status {
	case "error":
		if !strings.HasPrefix(out, "Error") {
			out = "Error: " + out
		}
	case "interrupted", "cancelled", "skipped":
		// The output already says why; it is written for the model.
	}
	if out == "" {
		out = "OK"
	}
	return out
}

// BashMessage is how a user's own shell command reaches the model.
func BashMessage(p *event.BashExecutedPayload) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Ran `%s`\n", p.Command)
	if p.Output != "" {
		fmt.Fprintf(&b, "```\n%s\n```\n", strings.TrimRight(p.Output, "\n"))
	} else {
		b.WriteString("(no output)\n")
	}
	switch {
	case p.Cancelled:
		b.WriteString("(command cancelled)")
	case p.ExitCode != 0:
		fmt.Fprintf(&b, "Command exited with code %d", p.ExitCode)
	}
	if p.FullOutputPath != "" {
		fmt.Fprintf(&b, "\n[full output: %s]", p.FullOutputPath)
	}
	return strings.TrimRight(b.String(), "\n")
}

// Clone returns an independent copy, for a turn to extend while the
// session's own fold goes on.
func (c *Conversation) Clone() *Conversation {
	out := &Conversation{
		entries:     append([]Entry(nil), c.entries...),
		pending:     c.pending.Clone(),
		origins:     make(map[string]string, len(c.origins)),
		names:       make(map[string]string, len(c.names)),
		textResults: append([]tooltext.ToolResult(nil), c.textResults...),
		textID:      c.textID,
	}
	for k, v := range c.origins {
		out.origins[k] = v
	}
	for k, v := range c.names {
		out.names[k] = v
	}
	return out
}

// Len is the number of messages.
func (c *Conversation) Len() int {
	n := len(c.entries)
	if len(c.textResults) > 0 {
		n++
	}
	return n
}

func importedMessage(h event.HistoryMessage) llm.Message {
	m := llm.Message{Role: llm.Role(h.Role), Content: h.Content, Thinking: h.Thinking, ToolCallID: h.ToolCallID}
	for _, tc := range h.ToolCalls {
		m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments})
	}
	return m
}
