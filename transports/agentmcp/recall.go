package agentmcp

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/troupehq/troupe/persistence/event"
)

// Loader calls fn with every event of a session's conversation in order
// (a fork's inherited history first).
type Loader func(ctx context.Context, id string, fn func(event.Event) error) error

// noHistory is what the recall tools answer before any compaction.
const noHistory = "no compacted history yet: this session has not been compacted, so everything is still in the conversation"

// Bounds on a recall answer.
const (
	defaultRecall = 20
	maxRecall     = 200
	maxRange      = 100
	snippetAround = 80
)

// Recall serves /mcp/hydra-acp-recall over the sessions' logs.
func Recall(tokens Tokens, load Loader, version string, log *slog.Logger) http.Handler {
	return serve(tokens, log, func(id string) *mcp.Server { return recallServer(id, load, version) })
}

type recallTools struct {
	id   string
	load Loader
}

// SearchIn searches the pre-compaction entries.
type SearchIn struct {
	Query            string `json:"query" jsonschema:"case-insensitive substring"`
	Limit            int    `json:"limit,omitempty" jsonschema:"at most this many matches (default 20)"`
	IncludeToolCalls bool   `json:"include_tool_calls,omitempty" jsonschema:"also search tool calls' arguments and output"`
}

// Hit is one search match.
type Hit struct {
	Entry   int    `json:"entry"`
	Role    string `json:"role"`
	Snippet string `json:"snippet"`
}

// SearchOut answers search; Note is set instead before any compaction.
type SearchOut struct {
	Matches []Hit  `json:"matches"`
	Note    string `json:"note,omitempty"`
}

// RangeIn names a contiguous slice of entries, both ends included.
type RangeIn struct {
	FromEntry int `json:"from_entry"`
	ToEntry   int `json:"to_entry"`
}

// EntriesOut answers range and tool_calls.
type EntriesOut struct {
	Entries []Entry `json:"entries"`
	Total   int     `json:"total" jsonschema:"pre-compaction entries in all"`
	Note    string  `json:"note,omitempty"`
}

// ToolCallsIn filters prior tool calls.
type ToolCallsIn struct {
	ToolName string `json:"tool_name,omitempty"`
	Limit    int    `json:"limit,omitempty" jsonschema:"at most this many, the latest (default 20)"`
}

func recallServer(id string, load Loader, version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: RecallServer, Version: version}, nil)
	t := recallTools{id: id, load: load}
	mcp.AddTool(s, &mcp.Tool{Name: "search", Description: "Case-insensitive substring search across this session's history from before its last compaction."}, t.search)
	mcp.AddTool(s, &mcp.Tool{Name: "range", Description: "Verbatim entries from_entry..to_entry (inclusive) of this session's pre-compaction history."}, t.rangeEntries)
	mcp.AddTool(s, &mcp.Tool{Name: "tool_calls", Description: "Tool calls made before this session's last compaction, optionally of one tool."}, t.toolCalls)
	return s
}

func (t recallTools) entries(ctx context.Context) ([]Entry, bool, error) {
	h := newHistory()
	if err := t.load(ctx, t.id, h.add); err != nil {
		return nil, false, err
	}
	es, ok := h.before()
	return es, ok, nil
}

func limitOf(n int) int {
	if n <= 0 {
		return defaultRecall
	}
	return min(n, maxRecall)
}

func (t recallTools) search(ctx context.Context, _ *mcp.CallToolRequest, in SearchIn) (*mcp.CallToolResult, SearchOut, error) {
	if strings.TrimSpace(in.Query) == "" {
		return nil, SearchOut{}, errors.New("query is required")
	}
	es, ok, err := t.entries(ctx)
	if err != nil || !ok {
		return nil, SearchOut{Matches: []Hit{}, Note: noHistory}, err
	}
	q, limit := strings.ToLower(in.Query), limitOf(in.Limit)
	out := SearchOut{Matches: []Hit{}}
	for _, e := range es {
		texts := []string{e.Text}
		if e.Role == "tool" {
			if !in.IncludeToolCalls {
				continue
			}
			texts = []string{e.ToolName, e.Arguments, e.Output}
		}
		for _, s := range texts {
			if i := strings.Index(strings.ToLower(s), q); i >= 0 {
				out.Matches = append(out.Matches, Hit{Entry: e.Index, Role: e.Role, Snippet: snippet(s, i, len(q))})
				break
			}
		}
		if len(out.Matches) >= limit {
			break
		}
	}
	return nil, out, nil
}

// snippet is s around [i, i+n), cut on rune boundaries.
func snippet(s string, i, n int) string {
	from, to := max(0, i-snippetAround), min(len(s), i+n+snippetAround)
	for from > 0 && !isRuneStart(s[from]) {
		from--
	}
	for to < len(s) && !isRuneStart(s[to]) {
		to++
	}
	out := s[from:to]
	if from > 0 {
		out = "…" + out
	}
	if to < len(s) {
		out += "…"
	}
	return out
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func (t recallTools) rangeEntries(ctx context.Context, _ *mcp.CallToolRequest, in RangeIn) (*mcp.CallToolResult, EntriesOut, error) {
	if in.FromEntry < 0 || in.ToEntry < in.FromEntry {
		return nil, EntriesOut{}, errors.New("want 0 <= from_entry <= to_entry")
	}
	es, ok, err := t.entries(ctx)
	if err != nil || !ok {
		return nil, EntriesOut{Entries: []Entry{}, Note: noHistory}, err
	}
	out := EntriesOut{Entries: []Entry{}, Total: len(es)}
	to := min(in.ToEntry, len(es)-1, in.FromEntry+maxRange-1)
	if in.FromEntry < len(es) {
		out.Entries = append(out.Entries, es[in.FromEntry:to+1]...)
	}
	return nil, out, nil
}

func (t recallTools) toolCalls(ctx context.Context, _ *mcp.CallToolRequest, in ToolCallsIn) (*mcp.CallToolResult, EntriesOut, error) {
	es, ok, err := t.entries(ctx)
	if err != nil || !ok {
		return nil, EntriesOut{Entries: []Entry{}, Note: noHistory}, err
	}
	var calls []Entry
	for _, e := range es {
		if e.Role == "tool" && e.ToolCallID != "" && (in.ToolName == "" || e.ToolName == in.ToolName) {
			calls = append(calls, e)
		}
	}
	limit := limitOf(in.Limit)
	if len(calls) > limit {
		calls = calls[len(calls)-limit:]
	}
	if calls == nil {
		calls = []Entry{}
	}
	return nil, EntriesOut{Entries: calls, Total: len(es)}, nil
}
