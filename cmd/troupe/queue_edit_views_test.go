package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// A prompt edited while it waits in the queue is shown with its edit in
// every view that folds the log (transcript, REST history, export,
// search), as the model was sent it: one fold of prompt.updated for all.
func TestQueuedPromptEditShownEverywhere(t *testing.T) {
	home := t.TempDir()
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("working "), llmserver.Delay(30*time.Second), llmserver.Text("never")),
		llmserver.Steps(llmserver.Text("answered the edit")),
	}})
	env := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	d := startDaemonBinary(t, home, env, "--provider", "openai", "--model", "tiny", "--approval-mode", "yolo")
	env = append(env, "TROUPE_HOME="+home)
	run := func(args ...string) string {
		t.Helper()
		return cli(t, env, "", append([]string{"session"}, args...)...).ok(t, strings.Join(args, " "))
	}
	id := strings.TrimSpace(run("new", "--cwd", t.TempDir()))
	run("prompt", id, "long job", "--queue")
	msg := strings.Fields(run("prompt", id, "stale wording", "--queue"))[0]
	testkit.Equal(t, run("queue", id, "--edit", msg, "edited wording"), msg+" updated\n")
	waitBusy(t, env)
	run("cancel", id)
	testkit.Eventually(t, 30*time.Second, "the edited prompt's answer", func() bool {
		return strings.Contains(run("transcript", id), "answered the edit")
	})
	sent := srv.Requests()
	if last := sent[len(sent)-1].Body; !strings.Contains(string(last), "edited wording") {
		t.Fatalf("the model was not sent the edit: %s", last)
	}

	shows := func(view, text string) {
		t.Helper()
		if !strings.Contains(text, "edited wording") || strings.Contains(text, "stale wording") {
			t.Fatalf("%s does not show the edited prompt alone:\n%s", view, text)
		}
	}
	shows("transcript", run("transcript", id))

	res := d.do(t, http.MethodGet, "/v1/sessions/"+id+"/history", nil)
	body, err := io.ReadAll(res.Body)
	testkit.NoError(t, err)
	shows("REST history", string(body))

	var b struct {
		PromptHistory []string          `json:"promptHistory"`
		History       []json.RawMessage `json:"history"`
	}
	testkit.NoError(t, json.Unmarshal([]byte(run("export", id)), &b))
	shows("export's promptHistory", strings.Join(b.PromptHistory, "\n"))
	var hist strings.Builder
	for _, h := range b.History {
		hist.Write(h)
	}
	shows("export's history", hist.String())

	if !strings.Contains(run("search", "edited wording"), id) {
		t.Fatal("search does not find the edited prompt")
	}
	if stale := cli(t, env, "", "session", "search", "stale wording"); stale.stdout != "" {
		t.Fatalf("search finds the prompt's text from before the edit:\n%s", stale.stdout)
	}
}
