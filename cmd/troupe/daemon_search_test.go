package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

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
