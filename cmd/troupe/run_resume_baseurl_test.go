package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// A run started with --base-url and killed is resumed with --session
// alone on the server it ran against, not on the provider's default
// ($OPENAI_BASE_URL here, standing for the public endpoint): the session
// records the base URL with its provider and model, never the API key.
// While that server is down the resume fails before it touches the
// session, keeping the interrupted run, and once it is back the same
// command resumes it.
func TestRunResumeKeepsTheBaseURL(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	home, work := t.TempDir(), t.TempDir()
	side := filepath.Join(work, "side.txt")
	local := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: []llmserver.Reply{bashStep(1, side, "true"), bashStep(2, side, "sleep 30")}})
	public := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("the wrong server"))}})
	env := []string{"TROUPE_HOME=" + home, "OPENAI_BASE_URL=" + public.URL() + "/v1", "OPENAI_API_KEY="}
	killMidTool(t, bin, env, "call-2", side, "step-2", "--yolo", "--provider", "openai", "--model", "tiny",
		"--base-url", local.URL()+"/v1", "--api-key", "sk-never-recorded", "--session", "kept", "--cwd", work, "three steps")
	addr := strings.TrimPrefix(local.URL(), "http://")
	testkit.NoError(t, local.Close())

	lines, stderr, code := runLines(t, bin, env, "run", "--session", "kept")
	if code != 1 || !strings.Contains(stderr, local.URL()+"/v1") || !strings.Contains(stderr, "troupe run --session kept") {
		t.Fatalf("resume with the server down: exit %d\n%s\n%s", code, strings.Join(lines, "\n"), stderr)
	}
	for _, e := range readStored(t, bin, home, "kept") {
		if e.Kind == event.RunEnded {
			t.Fatal("the failed resume ended the interrupted run")
		}
	}

	llmserver.New(t, llmserver.Script{Model: "tiny", Replies: []llmserver.Reply{bashStep(3, side, "true"), llmserver.Steps(llmserver.Text("all done"))}},
		llmserver.WithAddr(addr))
	lines, stderr, code = runLines(t, bin, env, "run", "--session", "kept")
	if code != 0 || !strings.Contains(strings.Join(lines, "\n"), "all done") {
		t.Fatalf("resume with the server back: exit %d\n%s\n%s", code, strings.Join(lines, "\n"), stderr)
	}
	testkit.Equal(t, len(public.Requests()), 0)

	evs := readStored(t, bin, home, "kept")
	created := eventsOf[event.CreatedPayload](t, evs, event.SessionCreated)[0].Settings
	testkit.Equal(t, *created.BaseURL, local.URL()+"/v1")
	raw, err := json.Marshal(evs)
	testkit.NoError(t, err)
	if strings.Contains(string(raw), "sk-never-recorded") {
		t.Fatal("the API key is in the log")
	}
}
