package sessions

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/troupehq/troupe/persistence/event"
)

// Match is one message of a session whose text contains the query.
type Match struct {
	SessionID string
	MessageID string
	Seq       int64
	Snippet   string // the text around the first occurrence
}

// snippetContext is how many bytes of text a snippet shows either side.
const snippetContext = 40

// Search finds q (ignoring case) in the prompts and the assistant replies
// of the sessions in ids (every session when ids is empty), from the store.
// A session's matches come in log order.
func (c *Client) Search(ctx context.Context, q string, ids []string) ([]Match, error) {
	var out []Match
	kinds := []event.Kind{event.PromptQueued, event.MessageCompleted}
	err := c.store.SearchCandidates(ctx, q, kinds, ids, func(e event.Event) error {
		id, text := searchable(e)
		if snip, ok := snippet(text, q); ok {
			out = append(out, Match{SessionID: e.SessionID, MessageID: id, Seq: e.Seq, Snippet: snip})
		}
		return nil
	})
	return out, err
}

// searchable is an event's message id and the text a person reads in it.
func searchable(e event.Event) (string, string) {
	switch e.Kind {
	case event.PromptQueued:
		var p event.PromptQueuedPayload
		if e.Decode(&p) != nil {
			return "", ""
		}
		return p.MessageID, blocksText(p.Content)
	case event.PromptUpdated:
		// The store passes a prompt edited while it waited as its last
		// edit: the text it was sent with.
		var p event.PromptChangedPayload
		if e.Decode(&p) != nil {
			return "", ""
		}
		return p.MessageID, blocksText(p.Content)
	case event.MessageCompleted:
		var p event.MessageCompletedPayload
		if e.Decode(&p) != nil {
			return "", ""
		}
		return p.MessageID, p.Text
	}
	return "", ""
}

// snippet is text around q's first occurrence, ellipsed where cut.
func snippet(text, q string) (string, bool) {
	i := strings.Index(strings.ToLower(text), strings.ToLower(q))
	if i < 0 || q == "" {
		return "", false
	}
	from, to := max(0, i-snippetContext), min(len(text), i+len(q)+snippetContext)
	for from > 0 && !utf8.RuneStart(text[from]) {
		from--
	}
	for to < len(text) && !utf8.RuneStart(text[to]) {
		to++
	}
	s := text[from:to]
	if from > 0 {
		s = "…" + s
	}
	if to < len(text) {
		s += "…"
	}
	return s, true
}
