package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// A session made over REST records the daemon's default model, as
// session/new does: its entry's currentModel and `troupe session list`'s
// model column name it; a model the request names wins.
func TestDaemonRESTSessionRecordsDefaultModel(t *testing.T) {
	home := t.TempDir()
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("hi")))
	d := startDaemon(t, home, env, model...)
	id := d.create(t, t.TempDir())
	var got struct{ CurrentModel string }
	d.call(t, "GET", "/v1/sessions/"+id, nil, http.StatusOK, &got)
	testkit.Equal(t, got.CurrentModel, "openai/tiny")

	var named struct{ SessionID string }
	d.call(t, "POST", "/v1/sessions", map[string]string{"cwd": t.TempDir(), "model": "tiny"}, http.StatusCreated, &named)
	d.call(t, "GET", "/v1/sessions/"+named.SessionID, nil, http.StatusOK, &got)
	testkit.Equal(t, got.CurrentModel, "openai/tiny")

	list := cli(t, append(env, "TROUPE_HOME="+home), "", "session", "list").ok(t, "session list")
	for _, line := range strings.Split(list, "\n") {
		if strings.HasPrefix(line, id) && !strings.Contains(line, " openai/tiny ") {
			t.Fatalf("session list's line of %s has no model: %q", id, line)
		}
	}
	if !strings.Contains(list, id) {
		t.Fatalf("session list lacks %s:\n%s", id, list)
	}
}
