package main

import (
	"net/http"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// A REST session entry carries the reference's context occupancy,
// currentUsage {used, size}: the context its last step used (from the
// session's row, in lists too) out of its model's window; a session that
// has not stepped has neither.
func TestDaemonSessionEntriesCarryContextUse(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env, model := llmEnv(t,
		llmserver.Steps(llmserver.Text("small"), llmserver.ReportUsage(llmserver.Usage{PromptTokens: 1000, CompletionTokens: 10})))
	d := startDaemon(t, home, env, model...)
	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(work)
	idle, _ := c.NewSession(work)
	if f := c.WaitAnswer(c.Prompt(sid, "one")); f.Error != nil {
		t.Fatalf("prompt: %s", f.Raw)
	}
	type entry struct {
		SessionID    string `json:"sessionId"`
		CurrentUsage struct {
			Used, Size   *int64
			InputTokens  int64 `json:"inputTokens"`
			OutputTokens int64 `json:"outputTokens"`
		} `json:"currentUsage"`
	}
	var e entry
	d.call(t, http.MethodGet, "/v1/sessions/"+sid, nil, http.StatusOK, &e)
	if e.CurrentUsage.Used == nil || *e.CurrentUsage.Used != 1010 || e.CurrentUsage.Size == nil || *e.CurrentUsage.Size != 128000 {
		t.Fatalf("entry currentUsage %+v", e.CurrentUsage)
	}
	testkit.Equal(t, e.CurrentUsage.InputTokens, int64(1000))

	var list struct{ Sessions []entry }
	d.call(t, http.MethodGet, "/v1/sessions?includeNonInteractive=1", nil, http.StatusOK, &list)
	seen := 0
	for _, s := range list.Sessions {
		switch s.SessionID {
		case sid:
			seen++
			if s.CurrentUsage.Used == nil || *s.CurrentUsage.Used != 1010 || *s.CurrentUsage.Size != 128000 {
				t.Fatalf("listed currentUsage %+v", s.CurrentUsage)
			}
		case idle:
			seen++
			if s.CurrentUsage.Used != nil || s.CurrentUsage.Size != nil {
				t.Fatalf("a session that never stepped: %+v", s.CurrentUsage)
			}
		}
	}
	testkit.Equal(t, seen, 2)
}
