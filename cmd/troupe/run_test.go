package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

func bashStep(n int, side string, sleep string) llmserver.Reply {
	cmd := fmt.Sprintf("echo step-%d >> %s; %s", n, side, sleep)
	args, _ := json.Marshal(map[string]string{"command": cmd})
	return llmserver.Steps(llmserver.Text(fmt.Sprintf("step %d", n)), llmserver.ToolCall(fmt.Sprintf("call-%d", n), "bash", string(args)))
}

func decodeEvents(t *testing.T, p *testkit.Proc, until func(event.Event) bool) []event.Event {
	t.Helper()
	var evs []event.Event
	for {
		line, ok := p.ReadLine(60 * time.Second)
		if !ok {
			t.Fatalf("stream ended before the expected event: %s", p.Stderr())
		}
		var e event.Event
		testkit.NoError(t, json.Unmarshal([]byte(line), &e))
		evs = append(evs, e)
		if until(e) {
			return evs
		}
	}
}

// The engine's crash acceptance test: SIGKILL in the middle of a 5-step
// tool loop, restart, and the run completes; every completed tool call ran
// exactly once and the cut-off one was not run again.
func TestRunSurvivesSIGKILLMidToolLoop(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	home, work := t.TempDir(), t.TempDir()
	side := filepath.Join(work, "side.txt")
	pidFile := filepath.Join(work, "pid3")
	replies := []llmserver.Reply{bashStep(1, side, "true"), bashStep(2, side, "true"), bashStep(3, side, "sleep 30 & echo $! > "+pidFile+"; wait")}
	replies = append(replies, bashStep(4, side, "true"), bashStep(5, side, "true"), llmserver.Steps(llmserver.Text("all five done")))
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: replies})
	env := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	args := []string{"run", "--home", home, "--provider", "openai", "--model", "tiny", "--yolo", "--json", "--session", "crashy", "--cwd", work}

	p := testkit.Start(t, bin, env, append(args, "run five steps")...)
	decodeEvents(t, p, func(e event.Event) bool {
		var s event.ToolStartedPayload
		return e.Kind == event.ToolStarted && e.Decode(&s) == nil && s.ToolCallID == "call-3"
	})
	var sleeper int
	testkit.Eventually(t, 10*time.Second, "step 3 started its sleep", func() bool {
		b, _ := os.ReadFile(pidFile)
		_, err := fmt.Sscan(string(b), &sleeper)
		return err == nil
	})
	p.Kill()
	p.Wait(t, 10*time.Second)

	p2 := testkit.Start(t, bin, env, args...)
	evs := decodeEvents(t, p2, func(e event.Event) bool { return e.Kind == event.RunEnded })
	testkit.Equal(t, p2.Wait(t, 30*time.Second), 0)

	statuses := map[string]string{}
	for _, e := range evs {
		var c event.ToolCompletedPayload
		if e.Kind == event.ToolCompleted && e.Decode(&c) == nil {
			statuses[c.ToolCallID] = c.Status
		}
	}
	testkit.Equal(t, statuses["call-3"], "interrupted")
	testkit.Equal(t, statuses["call-4"], "success")
	testkit.Equal(t, statuses["call-5"], "success")
	var end event.RunEndedPayload
	testkit.NoError(t, evs[len(evs)-1].Decode(&end))
	testkit.Equal(t, end.StopReason, "end_turn")

	b, err := os.ReadFile(side)
	testkit.NoError(t, err)
	testkit.Equal(t, strings.TrimSpace(string(b)), "step-1\nstep-2\nstep-3\nstep-4\nstep-5")

	// The cut-off call's process group died with troupe or on recovery:
	// nothing of it runs on while the model is told it was interrupted.
	if alive(sleeper) {
		t.Fatalf("the interrupted tool's child %d is still running", sleeper)
	}

	reqs, err := srv.WaitChatRequests(context.Background(), 6)
	testkit.NoError(t, err)
	if body := string(reqs[3].Body); !strings.Contains(body, "Interrupted: troupe restarted") {
		t.Fatalf("the model was not told of the interrupted call: %s", body)
	}
}

func TestRunTranscriptAndConfigErrors(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("Looking."), llmserver.ToolCall("c1", "ls", `{}`)),
		llmserver.Steps(llmserver.Text("Nothing here."), llmserver.ReportUsage(llmserver.Usage{PromptTokens: 12, CompletionTokens: 3})),
	}})
	home, work := t.TempDir(), t.TempDir()
	env := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	p := testkit.Start(t, bin, env, "run", "--home", home, "--provider", "openai", "--model", "tiny", "--cwd", work, "what is here?")
	var lines []string
	for l := range p.Lines() {
		lines = append(lines, l)
	}
	testkit.Equal(t, p.Wait(t, 30*time.Second), 0)
	// stdout: the session, the answer, the stop line; the rest on stderr,
	// as session prompt shows it.
	got := strings.Join(lines[1:], "\n")                                                  // the first line names the new session
	testkit.Equal(t, got, "Looking.\n\nNothing here.\n[end_turn · 12 in / 3 out tokens]") // each step a paragraph
	side := regexp.MustCompile(`\d+\.\ds`).ReplaceAllString(p.Stderr(), "N.Ns")
	if !strings.Contains(side, "› what is here? (from troupe run)\n  ✓ ls N.Ns\n") {
		t.Fatalf("stderr: %q", side)
	}

	p = testkit.Start(t, bin, []string{"OPENAI_BASE_URL=", "OPENAI_API_KEY="}, "run", "--home", t.TempDir(), "hi")
	testkit.Equal(t, p.Wait(t, 30*time.Second), 2)
	if !strings.Contains(p.Stderr(), "no provider selected") {
		t.Fatalf("stderr: %s", p.Stderr())
	}
}

// alive reports whether pid runs (a zombie waiting for init counts as gone).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(b))
	return len(fields) > 2 && fields[2] != "Z"
}

func TestRunResumeLatestContinuesTheConversation(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("Nice to meet you, Ada.")),
		llmserver.Steps(llmserver.Text("You are Ada.")),
	}})
	home, work := t.TempDir(), t.TempDir()
	env := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	base := []string{"run", "--home", home, "--provider", "openai", "--model", "tiny", "--cwd", work}
	p := testkit.Start(t, bin, env, append(base, "I am Ada")...)
	first, _ := p.ReadLine(30 * time.Second)
	testkit.Equal(t, p.Wait(t, 30*time.Second), 0)

	p = testkit.Start(t, bin, env, append(base, "--resume", "latest", "who am I?")...)
	second, _ := p.ReadLine(30 * time.Second)
	testkit.Equal(t, p.Wait(t, 30*time.Second), 0)
	testkit.Equal(t, second, first) // "session <id>": the same session

	reqs, err := srv.WaitChatRequests(context.Background(), 2)
	testkit.NoError(t, err)
	body := string(reqs[1].Body)
	if !strings.Contains(body, "I am Ada") || !strings.Contains(body, "Nice to meet you, Ada.") {
		t.Fatalf("second request lacks the first exchange: %s", body)
	}
	id := strings.TrimPrefix(first, "session ")
	testkit.Equal(t, reqs[1].Header.Get("X-Session-ID"), id)
}
