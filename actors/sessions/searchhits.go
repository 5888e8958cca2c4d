package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/troupehq/troupe/persistence/event"
)

// Snippet is one fragment of a session a term matched, cut around the
// match (an edited path is whole: it is the answer).
type Snippet struct {
	Kind       string // FragmentUser, FragmentAgent, …
	ToolName   string // the call's tool, for tool, tool-input and edit
	Text       string
	RecordedAt time.Time
}

// Hits are one session's matches of a query: every occurrence counted,
// the first few shown.
type Hits struct {
	SessionID    string
	TotalMatches int
	Snippets     []Snippet
}

// Snippet widths: the caller says how much room it paints in.
const (
	DefaultSnippetWidth = 72
	minSnippetWidth     = 24
	maxSnippetWidth     = 512
	// DefaultMaxSnippets is how many snippets a session's hits show.
	DefaultMaxSnippets = 5
)

// SearchHits finds q's terms (ParseQuery) in the sessions of ids (every
// session when ids is empty), from the store: prompts, replies, thoughts,
// tool names and arguments, and with edit: the files a session's edit
// calls changed (each file counted once). A session is a hit when any
// term matches, or with AND every term. maxSnippets bounds each hit's
// snippets, shared among the terms so an AND hit shows each term's;
// width is a snippet's length in characters, match included. The hits
// are keyed by session.
func (c *Client) SearchHits(ctx context.Context, q Query, ids []string, maxSnippets, width int) (map[string]*Hits, error) {
	width = clampWidth(width)
	if maxSnippets <= 0 {
		maxSnippets = DefaultMaxSnippets
	}
	out := map[string]*Hits{}
	if len(q.Terms) == 0 {
		return out, nil
	}
	dirs := &cwds{c: c, ctx: ctx, by: map[string]string{}}
	perTerm := make([]map[string]*Hits, len(q.Terms))
	for i, t := range q.Terms {
		var err error
		if perTerm[i], err = c.scanTerm(ctx, t, ids, dirs, maxSnippets, width); err != nil {
			return nil, err
		}
		if dirs.err != nil {
			return nil, dirs.err
		}
	}
	share := max(1, maxSnippets/len(q.Terms))
	for id := range sessionsHit(q, perTerm) {
		h := &Hits{SessionID: id}
		var spare []Snippet
		for _, th := range perTerm {
			if t := th[id]; t != nil {
				h.TotalMatches += t.TotalMatches
				h.Snippets = append(h.Snippets, t.Snippets[:min(share, len(t.Snippets))]...)
				spare = append(spare, t.Snippets[min(share, len(t.Snippets)):]...)
			}
		}
		h.Snippets = append(h.Snippets, spare[:min(len(spare), max(0, maxSnippets-len(h.Snippets)))]...)
		h.Snippets = h.Snippets[:min(len(h.Snippets), maxSnippets)]
		out[id] = h
	}
	return out, nil
}

// sessionsHit is the sessions the query matches: in any term's hits, or
// with AND in every term's.
func sessionsHit(q Query, perTerm []map[string]*Hits) map[string]bool {
	hit := map[string]bool{}
	for id := range perTerm[0] {
		hit[id] = true
	}
	for _, th := range perTerm[1:] {
		for id := range hit {
			if q.And && th[id] == nil {
				delete(hit, id)
			}
		}
		if !q.And {
			for id := range th {
				hit[id] = true
			}
		}
	}
	return hit
}

// cwds are the working directories of the sessions a search meets,
// read from the store as it meets them (relative edited paths are read
// against them): a search of 100,000 sessions that hits ten reads ten.
type cwds struct {
	c   *Client
	ctx context.Context
	by  map[string]string
	err error
}

// of is session id's working directory ("" when the session is gone).
func (w *cwds) of(id string) string {
	if cwd, ok := w.by[id]; ok {
		return cwd
	}
	m, err := w.c.store.Session(w.ctx, id)
	if err != nil && !errors.Is(err, ErrNotFound) && w.err == nil {
		w.err = err
	}
	w.by[id] = m.Cwd
	return m.Cwd
}

// scanTerm is one term's hits, by session.
func (c *Client) scanTerm(ctx context.Context, t Term, ids []string, dirs *cwds, budget, width int) (map[string]*Hits, error) {
	prefilter := t.Text
	if t.Scope == ScopeEdit {
		prefilter = "" // a relative path in the arguments does not hold an absolute query
	}
	out := map[string]*Hits{}
	seenPaths := map[string]bool{} // session + "\x00" + path: an edited file counts once
	needle := lowerRunes(t.Text)
	err := c.store.SearchCandidates(ctx, prefilter, kindsOf(t.Scope), ids, func(e event.Event) error {
		cwd := ""
		if e.Kind == event.ToolStarted {
			cwd = dirs.of(e.SessionID) // only an edit's path reads it
		}
		for _, f := range fragments(e, cwd) {
			if !t.Scope.covers(f.Kind) {
				continue
			}
			h := out[e.SessionID]
			if h == nil {
				h = &Hits{SessionID: e.SessionID}
			}
			snip := Snippet{Kind: f.Kind, ToolName: f.Tool, RecordedAt: e.RecordedAt}
			if f.Kind == FragmentEdit {
				key := e.SessionID + "\x00" + f.Text
				if seenPaths[key] || !pathUnder(f.Text, t.Text) {
					continue
				}
				seenPaths[key] = true
				h.TotalMatches++
				snip.Text = f.Text
			} else {
				n, text := occurrences(f.Text, needle, width)
				if n == 0 {
					continue
				}
				h.TotalMatches += n
				snip.Text = text
			}
			if len(h.Snippets) < budget {
				h.Snippets = append(h.Snippets, snip)
			}
			out[e.SessionID] = h
		}
		return nil
	})
	return out, err
}

// kindsOf is the event kinds a scope's fragments come from.
func kindsOf(s Scope) []event.Kind {
	switch s {
	case ScopeUser:
		return []event.Kind{event.PromptQueued, event.HistoryImported}
	case ScopeAgent:
		return []event.Kind{event.MessageCompleted, event.HistoryImported}
	case ScopeTool, ScopeEdit:
		return []event.Kind{event.ToolStarted}
	}
	return []event.Kind{event.PromptQueued, event.MessageCompleted, event.HistoryImported, event.ToolStarted}
}

type fragment struct {
	Kind, Tool, Text string
}

// fragments are the texts of e a search looks in.
func fragments(e event.Event, cwd string) []fragment {
	p, err := event.DecodePayload(e.Kind, e.Payload)
	if err != nil {
		return nil
	}
	var out []fragment
	add := func(kind, tool, text string) {
		if strings.TrimSpace(text) != "" {
			out = append(out, fragment{Kind: kind, Tool: tool, Text: text})
		}
	}
	switch v := p.(type) {
	case *event.PromptQueuedPayload:
		add(FragmentUser, "", blocksText(v.Content))
	case *event.PromptChangedPayload:
		// The store passes a prompt edited while it waited as its last
		// prompt.updated: the text it was sent with.
		if e.Kind == event.PromptUpdated {
			add(FragmentUser, "", blocksText(v.Content))
		}
	case *event.MessageCompletedPayload:
		add(FragmentAgent, "", v.Text)
		add(FragmentThought, "", v.Thinking)
	case *event.HistoryImportedPayload:
		for _, m := range v.Messages {
			switch m.Role {
			case "user":
				add(FragmentUser, "", m.Content)
			case "assistant":
				add(FragmentAgent, "", m.Content)
				add(FragmentThought, "", m.Thinking)
			}
		}
	case *event.ToolStartedPayload:
		add(FragmentTool, v.Name, v.Name)
		add(FragmentTool, v.Name, v.Description)
		add(FragmentToolInput, v.Name, v.Arguments)
		if path := editedPath(v, cwd); path != "" {
			add(FragmentEdit, v.Name, path)
		}
	}
	return out
}

// editedPath is the file an edit call changes, absolute, or "".
func editedPath(v *event.ToolStartedPayload, cwd string) string {
	if v.Category != "edit" {
		return ""
	}
	var args struct {
		Path     string `json:"path"`
		FilePath string `json:"file_path"`
	}
	if json.Unmarshal([]byte(v.Arguments), &args) != nil {
		return ""
	}
	path := args.Path
	if path == "" {
		path = args.FilePath
	}
	if path == "" {
		return ""
	}
	if !filepath.IsAbs(path) && cwd != "" {
		path = filepath.Join(cwd, path)
	}
	return filepath.Clean(path)
}

func clampWidth(w int) int {
	if w <= 0 {
		return DefaultSnippetWidth
	}
	return min(maxSnippetWidth, max(minSnippetWidth, w))
}

// lowerRunes is s lowered rune by rune, so that offsets in it are offsets
// in s's runes.
func lowerRunes(s string) []rune {
	r := []rune(s)
	for i, c := range r {
		r[i] = unicode.ToLower(c)
	}
	return r
}

// occurrences counts needle in text, ignoring case, and cuts the snippet
// around the first: on one line, about width characters, ellipsed where
// cut.
func occurrences(text string, needle []rune, width int) (int, string) {
	if len(needle) == 0 {
		return 0, ""
	}
	line := []rune(strings.Join(strings.Fields(text), " "))
	hay := string(lowerRunes(string(line)))
	n, first := 0, -1
	for from := 0; ; {
		i := strings.Index(hay[from:], string(needle))
		if i < 0 {
			break
		}
		if first < 0 {
			first = utf8.RuneCountInString(hay[:from+i])
		}
		n++
		from += i + len(string(needle))
	}
	if n == 0 {
		return 0, ""
	}
	return n, cut(line, first, len(needle), width)
}

// cut is width runes of line centred on the match at [at, at+n).
func cut(line []rune, at, n, width int) string {
	if len(line) <= width {
		return string(line)
	}
	from := max(0, at-(width-n)/2)
	to := min(len(line), from+width)
	from = max(0, to-width)
	s := string(line[from:to])
	if from > 0 {
		s = "…" + s
	}
	if to < len(line) {
		s += "…"
	}
	return s
}

// blocksText is a prompt's text, its blocks' joined.
func blocksText(bs []event.Block) string {
	var sb strings.Builder
	for _, b := range bs {
		sb.WriteString(b.Text)
	}
	return sb.String()
}
