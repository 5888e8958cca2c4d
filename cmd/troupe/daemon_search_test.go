package main

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// A search scoped to 50,000 sessions (a long-lived install's every id) is
// answered: the allowlist is one bound parameter, not a placeholder each
// past SQLite's limit; and no answer carries the store's SQL.
func TestDaemonSearchWithFiftyThousandSessionIDs(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("no regression left")))
	d := startDaemon(t, home, env, model...)
	c := d.dialACP(t, "tui")
	sid, _ := c.NewSession(work)
	if f := c.WaitAnswer(c.Prompt(sid, "check it")); f.Error != nil {
		t.Fatalf("prompt: %s", f.Raw)
	}

	// Short ids (the body well under 1 MiB), then ids of a real one's shape.
	for _, shape := range []string{"x%d", "s-%024d"} {
		ids := make([]string, 50_000)
		for i := range ids {
			ids[i] = fmt.Sprintf(shape, i)
		}
		ids[25_000] = sid
		res := d.do(t, "POST", "/v1/sessions/search", map[string]any{"q": "regression", "sessionIds": ids})
		body, err := io.ReadAll(res.Body)
		testkit.NoError(t, err)
		for _, sql := range []string{"SELECT", "session_id", "json_each", "SQL"} {
			if strings.Contains(string(body), sql) {
				t.Fatalf("the answer shows the store's SQL (%q): %.300s", sql, body)
			}
		}
		if res.StatusCode != http.StatusOK || !strings.Contains(string(body), `"sessionId":"`+sid+`"`) {
			t.Fatalf("search of 50,000 ids shaped %q: %d %.300s", shape, res.StatusCode, body)
		}
	}
	ids := make([]string, 50_000)
	for i := range ids {
		ids[i] = fmt.Sprintf("s-%024d", i)
	}
	var found struct {
		Matches []struct{ SessionID string }
	}
	d.call(t, "POST", "/v1/sessions/search", map[string]any{"q": "regression", "sessionIds": ids}, http.StatusOK, &found)
	testkit.Equal(t, len(found.Matches), 0)
}

// hydraSearch is POST /v1/sessions/search's answer as Hydra's clients
// read it (core/history-search.ts's SessionSearchResponse).
type hydraSearch struct {
	Query     string `json:"query"`
	Truncated *bool  `json:"truncated"`
	Results   []struct {
		SessionID    string    `json:"sessionId"`
		Title        string    `json:"title"`
		Cwd          string    `json:"cwd"`
		Status       string    `json:"status"`
		UpdatedAt    time.Time `json:"updatedAt"`
		TotalMatches int       `json:"totalMatches"`
		Snippets     []struct {
			Kind       string `json:"kind"`
			ToolName   string `json:"toolName"`
			Text       string `json:"text"`
			RecordedAt int64  `json:"recordedAt"`
		} `json:"snippets"`
	} `json:"results"`
	Matches []struct{ SessionID string } `json:"matches"`
}

// Search answers the shape the TUI's ^F and `hydra session changes` read,
// {query, truncated, results: [{sessionId, cwd, status, updatedAt,
// totalMatches, snippets: [{kind, text, recordedAt}], title}]}, beside the
// reference's matches; it parses Hydra's syntax (prompt:, response:,
// tool:, edit: scopes, quotes, AND/OR), and edit: finds the files a
// session changed, each once, on whole path segments.
func TestDaemonSearchHydraShape(t *testing.T) {
	d, id, work := editedSession(t)
	path := filepath.Join(work, "f.txt")
	search := func(q string) hydraSearch {
		t.Helper()
		var out hydraSearch
		d.call(t, "POST", "/v1/sessions/search", map[string]any{"q": q}, http.StatusOK, &out)
		testkit.Equal(t, out.Query, q)
		if out.Truncated == nil || *out.Truncated {
			t.Fatalf("search %q: truncated %v", q, out.Truncated)
		}
		return out
	}
	start := time.Now().Add(-time.Minute).UnixMilli()

	got := search("REGRESSION")
	if len(got.Results) != 1 || len(got.Matches) != 1 {
		t.Fatalf("search: %+v", got)
	}
	r := got.Results[0]
	if r.SessionID != id || r.Cwd != work || r.Status != "cold" || r.UpdatedAt.IsZero() || r.TotalMatches != 1 ||
		len(r.Snippets) != 1 || r.Snippets[0].Kind != "agent" || !strings.Contains(r.Snippets[0].Text, "no regression left") ||
		r.Snippets[0].RecordedAt < start || r.Snippets[0].RecordedAt > time.Now().UnixMilli() {
		t.Fatalf("hit: %+v", r)
	}

	// Three edits of one file: one file changed.
	for _, q := range []string{`edit:"` + work + `"`, `edit:"` + path + `"`, "edit:f.txt", `edited:"F.TXT"`} {
		got = search(q)
		if len(got.Results) != 1 || got.Results[0].TotalMatches != 1 || len(got.Results[0].Snippets) != 1 ||
			got.Results[0].Snippets[0].Kind != "edit" || got.Results[0].Snippets[0].Text != path {
			t.Fatalf("search %q: %+v", q, got.Results)
		}
	}
	for _, q := range []string{"edit:.txt", `edit:"` + work + `x"`, "prompt:regression", "prompt:please AND response:nowhere"} {
		if got = search(q); len(got.Results) != 0 {
			t.Fatalf("search %q: %+v", q, got.Results)
		}
	}

	got = search("prompt:please AND response:regression")
	if len(got.Results) != 1 || len(got.Results[0].Snippets) != 2 ||
		got.Results[0].Snippets[0].Kind != "user" || got.Results[0].Snippets[1].Kind != "agent" {
		t.Fatalf("AND: %+v", got.Results)
	}
	got = search("tool:edit")
	if len(got.Results) != 1 || got.Results[0].TotalMatches < 2 {
		t.Fatalf("tool:edit: %+v", got.Results)
	}
	for _, s := range got.Results[0].Snippets {
		if s.Kind != "tool" && s.Kind != "tool-input" || s.ToolName == "" {
			t.Fatalf("tool:edit snippet %+v", s)
		}
	}
	if got = search(`"please edit" OR nothing-here`); len(got.Results) != 1 || got.Results[0].Snippets[0].Kind != "user" {
		t.Fatalf("OR: %+v", got.Results)
	}
}
