package sessions

import (
	"regexp"
	"strings"
	"sync"
)

// Scope is which fragments of a session a search term is looked for in.
type Scope int

const (
	ScopeAll   Scope = iota // every fragment but edited paths
	ScopeUser               // prompts (prompt:)
	ScopeAgent              // replies and thoughts (response:)
	ScopeTool               // tool names and arguments (tool:)
	ScopeEdit               // paths of files the session changed (edit:, edited:)
)

// Term is one searched-for text and where.
type Term struct {
	Scope Scope
	Text  string
}

// Query is a parsed search: its terms, joined by AND (every term must
// match a session) or OR (any).
type Query struct {
	And   bool
	Terms []Term
}

// queryToken splits a query as Hydra's clients write one: prefix:"quoted
// text", "quoted text", or a word.
var queryToken = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\w+:"[^"]*"|"[^"]*"|\S+`) })

var (
	prefixedQuoted = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\w+):"([^"]*)"$`) })
	quoted         = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^"([^"]*)"$`) })
	prefixedWord   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?is)^(prompt|response|tool|edit|edited):(.*)$`) })
)

// ParseQuery reads Hydra's search syntax: terms optionally scoped by
// prompt:, response:, tool: or edit:, quotes keeping a phrase (and a
// literal AND or OR) whole, and standalone AND / OR (any case) joining
// them; AND wins when both appear, OR is the default. Empty terms (a bare
// "tool:") are dropped.
func ParseQuery(raw string) Query {
	var q Query
	sawAnd := false
	for _, tok := range queryToken().FindAllString(strings.TrimSpace(raw), -1) {
		switch strings.ToUpper(tok) {
		case "AND":
			sawAnd = true
			continue
		case "OR":
			continue
		}
		if t := parseTerm(tok); t.Text != "" {
			q.Terms = append(q.Terms, t)
		}
	}
	q.And = sawAnd
	return q
}

func parseTerm(tok string) Term {
	if m := prefixedQuoted().FindStringSubmatch(tok); m != nil {
		return Term{Scope: scopeOf(m[1]), Text: m[2]}
	}
	if m := quoted().FindStringSubmatch(tok); m != nil {
		return Term{Scope: ScopeAll, Text: m[1]}
	}
	if m := prefixedWord().FindStringSubmatch(tok); m != nil {
		return Term{Scope: scopeOf(m[1]), Text: strings.TrimSpace(m[2])}
	}
	return Term{Scope: ScopeAll, Text: strings.TrimSpace(tok)}
}

func scopeOf(prefix string) Scope {
	switch strings.ToLower(prefix) {
	case "prompt":
		return ScopeUser
	case "response":
		return ScopeAgent
	case "tool":
		return ScopeTool
	case "edit", "edited":
		return ScopeEdit
	}
	return ScopeAll
}

// Fragment kinds, as a search's snippets name them.
const (
	FragmentUser      = "user"
	FragmentAgent     = "agent"
	FragmentThought   = "thought"
	FragmentTool      = "tool"
	FragmentToolInput = "tool-input"
	FragmentEdit      = "edit"
)

// covers says whether scope s looks at fragments of kind. An edited path
// is also in its call's arguments, so only edit: sees edit fragments
// (anything else would count each edit twice).
func (s Scope) covers(kind string) bool {
	switch {
	case kind == FragmentEdit:
		return s == ScopeEdit
	case s == ScopeEdit:
		return false
	case s == ScopeAll:
		return true
	case s == ScopeUser:
		return kind == FragmentUser
	case s == ScopeAgent:
		return kind == FragmentAgent || kind == FragmentThought
	}
	return kind == FragmentTool || kind == FragmentToolInput
}

// pathUnder says whether path names the file or directory query does, on
// whole path segments, ignoring case: an absolute query is the path or a
// directory above it; a relative one is a run of segments anywhere in it
// ("app.ts" finds /src/app.ts, not /src/myapp.ts).
func pathUnder(path, query string) bool {
	hay := strings.ToLower(path)
	needle := strings.TrimRight(strings.ToLower(query), "/")
	if needle == "" {
		return false
	}
	if strings.HasPrefix(needle, "/") {
		return hay == needle || strings.HasPrefix(hay, needle+"/")
	}
	probe := "/" + needle
	for from := 0; ; {
		i := strings.Index(hay[from:], probe)
		if i < 0 {
			return false
		}
		end := from + i + len(probe)
		if end == len(hay) || hay[end] == '/' {
			return true
		}
		from += i + 1
	}
}
