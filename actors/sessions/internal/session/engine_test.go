package session_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/sessions/internal/session"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

type engineRig struct {
	rt   *actors.Runtime
	llm  *llmserver.Provider
	c    *testkit.Collector
	id   string
	cwd  string
	tune func(*session.Engine)
}

func newRig(t *testing.T, style string, script llmserver.Script, tune func(*session.Engine)) *engineRig {
	t.Helper()
	return newRigWith(t, style, script, tune, nil)
}

// newRigWith is newRig with the scripted provider wrapped (nil: as is).
func newRigWith(t *testing.T, style string, script llmserver.Script, tune func(*session.Engine), wrap func(*llmserver.Provider) llm.Provider) *engineRig {
	t.Helper()
	p, err := llmserver.NewProvider(script, llmserver.WithTest(t))
	testkit.NoError(t, err)
	var provider llm.Provider = p
	if wrap != nil {
		provider = wrap(p)
	}
	eng := testkit.Engine(provider, style)
	if tune != nil {
		tune(eng)
	}
	rt := testkit.Boot(t, actors.Options{Engine: eng})
	r := &engineRig{rt: rt, llm: p, id: "e", cwd: t.TempDir()}
	testkit.NoError(t, rt.Sessions.Create(context.Background(), r.id, event.CreatedPayload{Cwd: r.cwd}))
	r.c = testkit.NewCollector(t, rt.System)
	_, err = rt.Sessions.Subscribe(context.Background(), r.id, 1, false, r.c.PID())
	testkit.NoError(t, err)
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for _, e := range r.c.Events() {
			if e.Kind != event.MessageDelta {
				t.Logf("%d %s %s", e.Seq, e.Kind, e.Payload)
			}
		}
	})
	return r
}

func (r *engineRig) kinds(runID string) []string {
	var out []string
	for _, e := range r.c.Events() {
		if e.Kind == event.MessageDelta {
			continue
		}
		out = append(out, string(e.Kind))
	}
	return out
}

func toolStatuses(evs []event.Event) []string {
	var out []string
	for _, e := range evs {
		if e.Kind == event.ToolCompleted {
			var p event.ToolCompletedPayload
			_ = e.Decode(&p)
			out = append(out, p.Name+":"+p.Status)
		}
	}
	return out
}

func TestNativeToolLoop(t *testing.T) {
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("writing"), llmserver.ToolCall("c1", "write", `{"path":"a.txt","content":"hello"}`)),
		llmserver.Steps(llmserver.ToolCall("c2", "read", `{"path":"a.txt"}`), llmserver.ReportUsage(llmserver.Usage{PromptTokens: 10, CompletionTokens: 5})),
		llmserver.Steps(llmserver.Thinking("hmm"), llmserver.Text("done")),
	}}, nil)
	run := testkit.Prompt(t, r.rt, r.id, "make a file")
	end := testkit.WaitRunEnded(t, r.c, run, 10*time.Second)
	testkit.Equal(t, end.StopReason, event.StopEndTurn)
	got, err := os.ReadFile(filepath.Join(r.cwd, "a.txt"))
	testkit.NoError(t, err)
	testkit.Equal(t, string(got), "hello")
	testkit.DeepEqual(t, toolStatuses(r.c.Events()), []string{"write:success", "read:success"})
	testkit.Equal(t, end.Usage.Output, int64(5))

	reqs := r.llm.Requests()
	testkit.Equal(t, len(reqs), 3)
	last := reqs[2].Messages
	var roles []string
	for _, m := range last {
		roles = append(roles, string(m.Role))
	}
	testkit.Equal(t, strings.Join(roles, ","), "user,assistant,tool,assistant,tool")
	if !strings.Contains(last[4].Content, "hello") || last[4].ToolCallID != "c2" {
		t.Fatalf("read result: %+v", last[4])
	}
}

func TestTextToolStyle(t *testing.T) {
	r := newRig(t, event.ToolStyleText, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("<think>plan</think>Listing."), llmserver.TextToolCall(llmserver.FormatGemma, llmserver.InnerCall, "ls", map[string]any{})),
		llmserver.Steps(llmserver.Text("all listed")),
	}}, nil)
	testkit.NoError(t, os.WriteFile(filepath.Join(r.cwd, "x.go"), []byte("package x"), 0o644))
	run := testkit.Prompt(t, r.rt, r.id, "list")
	end := testkit.WaitRunEnded(t, r.c, run, 10*time.Second)
	testkit.Equal(t, end.StopReason, event.StopEndTurn)
	reqs := r.llm.Requests()
	testkit.Equal(t, len(reqs), 2)
	if len(reqs[0].Tools) != 0 || !strings.Contains(reqs[0].Messages[0].Content, "ls") {
		t.Fatalf("text style must describe tools in the system prompt: %+v", reqs[0].Messages[0])
	}
	msgs := reqs[1].Messages
	results := msgs[len(msgs)-1]
	if results.Role != llm.RoleUser || !strings.HasPrefix(results.Content, "Tool results:\n\n[ls] ") || !strings.Contains(results.Content, "x.go") {
		t.Fatalf("tool results message: %+v", results)
	}
	// The visible text has neither the think block nor the call.
	var text strings.Builder
	for _, e := range r.c.Events() {
		var p event.MessageDeltaPayload
		if e.Kind == event.MessageDelta && e.Decode(&p) == nil && p.Channel == event.ChannelText {
			text.WriteString(p.Text)
		}
	}
	if strings.Contains(text.String(), "tool_call") || strings.Contains(text.String(), "plan") {
		t.Fatalf("visible text leaks protocol: %q", text.String())
	}
}

func TestMaxTurnsAsksForFinalAnswer(t *testing.T) {
	call := llmserver.Steps(llmserver.ToolCall("", "ls", `{}`))
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{call, call, llmserver.Steps(llmserver.Text("final"))}},
		func(e *session.Engine) { e.MaxSteps = 2 })
	run := testkit.Prompt(t, r.rt, r.id, "loop")
	end := testkit.WaitRunEnded(t, r.c, run, 10*time.Second)
	testkit.Equal(t, end.StopReason, event.StopMaxTurnRequests)
	reqs := r.llm.Requests()
	testkit.Equal(t, len(reqs), 3)
	if len(reqs[2].Tools) != 0 {
		t.Fatal("the final-answer request still offered tools")
	}
	lastMsg := reqs[2].Messages[len(reqs[2].Messages)-1]
	testkit.Equal(t, lastMsg.Content, "You have reached the maximum number of turns. Please provide your final answer now.")
}

func TestRetryThenSuccess(t *testing.T) {
	busy := llmserver.Steps(llmserver.HTTPError(llmserver.APIError{Status: 503, Message: "Loading model", Type: "unavailable_error"}))
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{busy, busy, llmserver.Steps(llmserver.Text("ok"))}}, nil)
	run := testkit.Prompt(t, r.rt, r.id, "hi")
	end := testkit.WaitRunEnded(t, r.c, run, 10*time.Second)
	testkit.Equal(t, end.StopReason, event.StopEndTurn)
	n := map[event.Kind]int{}
	for _, e := range r.c.Events() {
		n[e.Kind]++
	}
	testkit.Equal(t, n[event.RetryStarted], 2)
	testkit.Equal(t, n[event.RetryEnded], 1)
	testkit.Equal(t, n[event.RunEnded], 1)
}

func TestRetryDisabledGivesTheError(t *testing.T) {
	busy := llmserver.Steps(llmserver.HTTPError(llmserver.APIError{Status: 503, Message: "Loading model", Type: "unavailable_error"}))
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{busy}}, func(e *session.Engine) { e.Retry.Enabled = false })
	run := testkit.Prompt(t, r.rt, r.id, "hi")
	end := testkit.WaitRunEnded(t, r.c, run, 10*time.Second)
	testkit.Equal(t, end.StopReason, event.StopError)
	if !strings.Contains(end.Error, "Loading model") {
		t.Fatalf("error %q", end.Error)
	}
}

func TestApprovalDenyReachesModel(t *testing.T) {
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.ToolCall("w1", "write", `{"path":"no.txt","content":"x"}`)),
		llmserver.Steps(llmserver.Text("understood")),
	}}, func(e *session.Engine) { e.DefaultMode = event.ApprovalDefault })
	run := testkit.Prompt(t, r.rt, r.id, "write it")
	req := r.c.WaitKind(t, event.ToolPermissionRequested, 10*time.Second)
	var p event.PermissionRequestedPayload
	testkit.NoError(t, req.Decode(&p))
	testkit.Equal(t, p.ToolCallID, "w1")
	err := r.rt.Sessions.Decide(context.Background(), r.id, sessions.Decision{ToolCallID: "w1", Allow: false, Reason: "not now", By: "test"})
	testkit.NoError(t, err)
	end := testkit.WaitRunEnded(t, r.c, run, 10*time.Second)
	testkit.Equal(t, end.StopReason, event.StopEndTurn)
	if _, err := os.Stat(filepath.Join(r.cwd, "no.txt")); err == nil {
		t.Fatal("denied write ran")
	}
	msgs := r.llm.Requests()[1].Messages
	if got := msgs[len(msgs)-1].Content; !strings.Contains(got, "not now") {
		t.Fatalf("model was told %q", got)
	}
}

func TestCancelMidStream(t *testing.T) {
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("partial "), llmserver.Delay(time.Minute), llmserver.Text("never")),
	}}, nil)
	run := testkit.Prompt(t, r.rt, r.id, "talk")
	r.c.WaitKind(t, event.MessageDelta, 10*time.Second)
	res, err := r.rt.Sessions.Cancel(context.Background(), r.id, "user")
	testkit.NoError(t, err)
	testkit.Equal(t, res.RunID, run)
	end := testkit.WaitRunEnded(t, r.c, run, 10*time.Second)
	testkit.Equal(t, end.StopReason, event.StopCancelled)
	mc := r.c.WaitKind(t, event.MessageCompleted, time.Second)
	var p event.MessageCompletedPayload
	testkit.NoError(t, mc.Decode(&p))
	testkit.Equal(t, p.Text, "partial")
}

func TestQueuedPromptsRunInOrderAndCanBeEdited(t *testing.T) {
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("one"), llmserver.Delay(time.Minute)),
		llmserver.Steps(llmserver.Text("two")),
	}}, nil)
	first := testkit.Prompt(t, r.rt, r.id, "first")
	second := testkit.Prompt(t, r.rt, r.id, "second")
	third := testkit.Prompt(t, r.rt, r.id, "third")
	r.c.WaitKind(t, event.MessageDelta, 10*time.Second) // the first run holds the first reply
	ctx := context.Background()
	res, err := r.rt.Sessions.QueueUpdate(ctx, r.id, second, []event.Block{{Type: "text", Text: "second, edited"}})
	testkit.NoError(t, err)
	testkit.Equal(t, res.Reason, "ok")
	res, err = r.rt.Sessions.QueueCancel(ctx, r.id, third)
	testkit.NoError(t, err)
	testkit.Equal(t, res.Reason, "ok")
	res, err = r.rt.Sessions.QueueCancel(ctx, r.id, first)
	testkit.NoError(t, err)
	testkit.Equal(t, res.Reason, "already_running")
	_, err = r.rt.Sessions.Cancel(ctx, r.id, "next")
	testkit.NoError(t, err)
	testkit.Equal(t, testkit.WaitRunEnded(t, r.c, first, 10*time.Second).StopReason, event.StopCancelled)
	testkit.WaitRunEnded(t, r.c, second, 10*time.Second)
	reqs := r.llm.Requests()
	testkit.Equal(t, len(reqs), 2)
	msgs := reqs[1].Messages
	testkit.Equal(t, msgs[len(msgs)-1].Content, "second, edited")
}
