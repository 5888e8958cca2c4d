package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// PATCH {"regen": true} asks the session's model for a title in the
// background and records it.
func TestDaemonRegenTitle(t *testing.T) {
	home := t.TempDir()
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("the flaky test now waits for its server")),
		llmserver.Steps(llmserver.Text("\"Fix The Flaky Test\"\nbecause it was flaky")),
	}})
	env := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	model := []string{"--provider", "openai", "--model", "tiny"}
	d := startDaemon(t, home, env, model...)
	id := d.create(t, t.TempDir())
	d.do(t, "POST", "/v1/sessions/"+id+"/kill", nil)
	if code, out := runPrompt(t, home, env, model, id, "please fix the flaky test"); code != 0 {
		t.Fatalf("troupe run: exit %d\n%s", code, out)
	}
	testkit.Equal(t, d.do(t, "PATCH", "/v1/sessions/"+id, map[string]bool{"regen": true}).StatusCode, http.StatusAccepted)
	testkit.Eventually(t, 30*time.Second, "the regenerated title", func() bool {
		var e sessionEntry
		d.call(t, "GET", "/v1/sessions/"+id, nil, http.StatusOK, &e)
		return e.Title == "Fix The Flaky Test"
	})
	reqs := srv.ChatRequests()
	last := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(last, "please fix the flaky test") || !strings.Contains(last, "waits for its server") {
		t.Fatalf("the title request lacks the conversation: %s", last)
	}
	wantError(t, d.do(t, "PATCH", "/v1/sessions/nope", map[string]bool{"regen": true}), http.StatusNotFound)
}
