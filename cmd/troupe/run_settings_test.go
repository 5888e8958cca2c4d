package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// fourBashSteps scripts four bash calls, the second one sleeping long
// enough to be killed, then a final answer.
func fourBashSteps(side string) []llmserver.Reply {
	return []llmserver.Reply{
		bashStep(1, side, "true"), bashStep(2, side, "sleep 30"), bashStep(3, side, "true"), bashStep(4, side, "true"),
		llmserver.Steps(llmserver.Text("all four done")),
	}
}

// killMidTool starts `troupe run` (with --json) and SIGKILLs it while the
// tool call callID runs, once side holds want.
func killMidTool(t *testing.T, bin string, env []string, callID, side, want string, args ...string) {
	t.Helper()
	p := testkit.Start(t, bin, env, append([]string{"run", "--json"}, args...)...)
	decodeEvents(t, p, func(e event.Event) bool {
		var pr event.ToolProcessPayload
		return e.Kind == event.ToolProcess && e.Decode(&pr) == nil && pr.ToolCallID == callID
	})
	testkit.Eventually(t, 10*time.Second, "the tool call wrote "+want, func() bool {
		b, _ := os.ReadFile(side)
		return strings.Contains(string(b), want)
	})
	p.Kill()
	p.Wait(t, 10*time.Second)
}

// runLines runs troupe to its end: stdout's lines, stderr, exit status.
func runLines(t *testing.T, bin string, env []string, args ...string) ([]string, string, int) {
	t.Helper()
	p := testkit.Start(t, bin, env, args...)
	var lines []string
	for l := range p.Lines() {
		lines = append(lines, l)
	}
	code := p.Wait(t, 60*time.Second)
	return lines, p.Stderr(), code
}

func chatModels(t *testing.T, srv *llmserver.Server, n int) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	reqs, err := srv.WaitChatRequests(ctx, n)
	testkit.NoError(t, err)
	models := make([]string, len(reqs))
	for i, r := range reqs {
		models[i], _ = r.JSON["model"].(string)
	}
	return models
}

func eventsOf[T any](t *testing.T, evs []event.Event, kind event.Kind) []T {
	t.Helper()
	var out []T
	for _, e := range evs {
		if e.Kind == kind {
			var p T
			testkit.NoError(t, e.Decode(&p))
			out = append(out, p)
		}
	}
	return out
}

// The case: `troupe run --yolo --model M` killed mid-run and resumed
// with `troupe run --session SID` alone runs the remaining calls (yolo, not
// denied) on model M: the session's settings come from its log.
func TestRunResumeKeepsTheSessionSettings(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	home, work := t.TempDir(), t.TempDir()
	side := filepath.Join(work, "side.txt")
	srv := llmserver.New(t, llmserver.Script{Model: "model-m", Replies: fourBashSteps(side)})
	env := []string{"TROUPE_HOME=" + home, "OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	killMidTool(t, bin, env, "call-2", side, "step-2", "--yolo", "--provider", "openai", "--model", "model-m", "--session", "kept", "--cwd", work, "four steps")

	lines, stderr, code := runLines(t, bin, env, "run", "--session", "kept")
	out := strings.Join(lines, "\n")
	if code != 0 || strings.Contains(out+stderr, "denied") || strings.Count(stderr, "✓ bash ") != 2 {
		t.Fatalf("exit %d; stdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	evs := readStored(t, bin, home, "kept")
	testkit.Equal(t, len(eventsOf[event.PermissionRequestedPayload](t, evs, event.ToolPermissionRequested)), 0)
	statuses := map[string]string{}
	for _, c := range eventsOf[event.ToolCompletedPayload](t, evs, event.ToolCompleted) {
		statuses[c.ToolCallID] = c.Status
	}
	testkit.DeepEqual(t, statuses, map[string]string{"call-1": "success", "call-2": "interrupted", "call-3": "success", "call-4": "success"})
	b, err := os.ReadFile(side)
	testkit.NoError(t, err)
	testkit.Equal(t, strings.TrimSpace(string(b)), "step-1\nstep-2\nstep-3\nstep-4")
	testkit.DeepEqual(t, chatModels(t, srv, 5), []string{"model-m", "model-m", "model-m", "model-m", "model-m"})

	created := eventsOf[event.CreatedPayload](t, evs, event.SessionCreated)[0].Settings
	testkit.Equal(t, *created.ApprovalMode, "yolo")
	testkit.Equal(t, *created.Provider, "openai")
	testkit.Equal(t, *created.Model, "model-m")
	// The one change is the title the first prompt gave.
	changes := eventsOf[event.Settings](t, evs, event.SessionSettingsChanged)
	testkit.Equal(t, len(changes), 1)
	testkit.Equal(t, *changes[0].Title, "four steps")
}

// A flag given on resume overrides the stored setting, for the resumed run
// from its first request, and is recorded: a later run without flags keeps it.
func TestRunResumeFlagOverridesAreRecorded(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	home, work := t.TempDir(), t.TempDir()
	side := filepath.Join(work, "side.txt")
	replies := append(fourBashSteps(side), llmserver.Steps(llmserver.Text("again")))
	srv := llmserver.New(t, llmserver.Script{Model: "small", Replies: replies})
	env := []string{"TROUPE_HOME=" + home, "OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	killMidTool(t, bin, env, "call-2", side, "step-2", "--yolo", "--provider", "openai", "--model", "small", "--session", "over", "--cwd", work, "four steps")

	lines, stderr, code := runLines(t, bin, env, "run", "--session", "over", "--model", "big", "--provider", "openai")
	if code != 0 {
		t.Fatalf("resume: exit %d; stdout:\n%s\nstderr:\n%s", code, strings.Join(lines, "\n"), stderr)
	}
	lines, stderr, code = runLines(t, bin, env, "run", "--session", "over", "and again")
	if code != 0 {
		t.Fatalf("next run: exit %d; stdout:\n%s\nstderr:\n%s", code, strings.Join(lines, "\n"), stderr)
	}
	testkit.DeepEqual(t, chatModels(t, srv, 6), []string{"small", "small", "big", "big", "big", "big"})

	evs := readStored(t, bin, home, "over")
	changes := eventsOf[event.Settings](t, evs, event.SessionSettingsChanged)
	testkit.Equal(t, len(changes), 2) // the first prompt's title, then the flags'
	testkit.Equal(t, *changes[0].Title, "four steps")
	// Only what changed is recorded; --provider named the stored provider.
	got, err := json.Marshal(changes[1])
	testkit.NoError(t, err)
	testkit.Equal(t, string(got), `{"model":"big"}`)
	// The mode stayed the stored yolo: the remaining calls ran.
	statuses := map[string]string{}
	for _, c := range eventsOf[event.ToolCompletedPayload](t, evs, event.ToolCompleted) {
		statuses[c.ToolCallID] = c.Status
	}
	testkit.Equal(t, statuses["call-3"]+" "+statuses["call-4"], "success success")
}

// A run whose tool calls were denied because no one could be asked says so
// and does not exit 0; with --json, stdout stays events and the note goes
// to stderr. Both are read from the log's permission events.
func TestRunDeniedCallsAreNotASuccess(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	home, work := t.TempDir(), t.TempDir()
	denied := func(id string) llmserver.Reply {
		return llmserver.Steps(llmserver.ToolCall(id, "bash", `{"command":"touch ran"}`))
	}
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: []llmserver.Reply{
		denied("c1"), llmserver.Steps(llmserver.Text("could not run it")),
		denied("c2"), llmserver.Steps(llmserver.Text("still could not")),
	}})
	env := []string{"TROUPE_HOME=" + home, "OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}

	lines, stderr, code := runLines(t, bin, env, "run", "--provider", "openai", "--model", "tiny", "--session", "d", "--cwd", work, "touch a file")
	testkit.Equal(t, code, exitDenied)
	out := strings.Join(lines, "\n")
	for _, want := range []string{
		"✗ 1 tool call(s) denied because troupe run cannot ask for approval: bash c1",
		"to allow them, run with --yolo: troupe run --session d --yolo PROMPT",
		"[end_turn · ",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("stdout lacks %q:\n%s\nstderr:\n%s", want, out, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "ran")); err == nil {
		t.Fatal("the denied call ran")
	}

	lines, stderr, code = runLines(t, bin, env, "run", "--session", "d", "--json", "once more")
	testkit.Equal(t, code, exitDenied)
	for _, l := range lines {
		var e event.Event
		if err := json.Unmarshal([]byte(l), &e); err != nil || e.Kind == "" {
			t.Fatalf("stdout line is not an event: %q", l)
		}
	}
	if !strings.Contains(stderr, "troupe run: ✗ 1 tool call(s) denied because troupe run cannot ask for approval: bash c2") {
		t.Fatalf("stderr: %s", stderr)
	}
}

// Errors and retry notices go to stderr; stdout keeps the transcript (its
// stop line) or, with --json, events only.
func TestRunErrorsGoToStderr(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	home, work := t.TempDir(), t.TempDir()
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.HTTPError(llmserver.APIError{Status: 503, Message: "loading model"})),
		llmserver.Steps(llmserver.Text("fine now")),
		llmserver.Steps(llmserver.HTTPError(llmserver.APIError{Status: 400, Message: "bad request body"})),
		llmserver.Steps(llmserver.HTTPError(llmserver.APIError{Status: 400, Message: "bad request body"})),
	}})
	env := []string{"TROUPE_HOME=" + home, "OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	base := []string{"run", "--provider", "openai", "--model", "tiny", "--session", "e", "--cwd", work}

	lines, stderr, code := runLines(t, bin, env, append(base, "first")...)
	testkit.Equal(t, code, 0)
	testkit.DeepEqual(t, lines[1:], []string{"fine now", "[end_turn · 0 in / 0 out tokens]"})
	if !strings.Contains(stderr, "troupe run: retry 1/3 in ") || !strings.Contains(stderr, "loading model") {
		t.Fatalf("stderr lacks the retry: %s", stderr)
	}

	lines, stderr, code = runLines(t, bin, env, append(base, "second")...)
	testkit.Equal(t, code, 1)
	testkit.DeepEqual(t, lines, []string{"session e", "[error · 0 in / 0 out tokens]"})
	if !strings.Contains(stderr, "troupe run: ") || !strings.Contains(stderr, "bad request body") {
		t.Fatalf("stderr lacks the error: %s", stderr)
	}

	lines, stderr, code = runLines(t, bin, env, append(base, "--json", "third")...)
	testkit.Equal(t, code, 1)
	for _, l := range lines {
		var e event.Event
		if err := json.Unmarshal([]byte(l), &e); err != nil || e.Kind == "" {
			t.Fatalf("stdout line is not an event: %q", l)
		}
	}
	if !strings.Contains(stderr, "bad request body") {
		t.Fatalf("stderr lacks the error: %s", stderr)
	}
}

// `troupe run` without a prompt continues an interrupted run or does
// nothing: it never creates a session, nor writes to one.
func TestRunWithoutPromptCreatesNothing(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	home, work := t.TempDir(), t.TempDir()
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("hello"))}})
	env := []string{"TROUPE_HOME=" + home, "OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	base := []string{"run", "--provider", "openai", "--model", "tiny", "--cwd", work}

	_, stderr, code := runLines(t, bin, env, base...)
	testkit.Equal(t, code, 2)
	if !strings.Contains(stderr, "give a prompt") {
		t.Fatalf("stderr: %s", stderr)
	}
	if _, err := os.Stat(filepath.Join(home, "troupe.db")); err == nil {
		t.Fatal("a store was created for nothing")
	}

	_, stderr, code = runLines(t, bin, env, append(base, "--session", "fresh")...)
	testkit.Equal(t, code, 2)
	if !strings.Contains(stderr, "session fresh does not exist: give a prompt") {
		t.Fatalf("stderr: %s", stderr)
	}
	store, err := persistence.Open(filepath.Join(home, "troupe.db"), persistence.Options{})
	testkit.NoError(t, err)
	_, err = store.Session(context.Background(), "fresh")
	testkit.NoError(t, store.Close())
	if !errors.Is(err, persistence.ErrSessionNotFound) {
		t.Fatalf("session fresh: %v", err)
	}

	_, _, code = runLines(t, bin, env, append(base, "--session", "done", "hi")...)
	testkit.Equal(t, code, 0)
	before := len(readStored(t, bin, home, "done"))
	_, stderr, code = runLines(t, bin, env, append(base, "--session", "done", "--model", "other")...)
	testkit.Equal(t, code, 2)
	if !strings.Contains(stderr, "session done has no interrupted run to continue: give a prompt") {
		t.Fatalf("stderr: %s", stderr)
	}
	testkit.Equal(t, len(readStored(t, bin, home, "done")), before)
}
