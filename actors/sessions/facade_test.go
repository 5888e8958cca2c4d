package sessions_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

const wait = 20 * time.Second

type rig struct {
	rt  *actors.Runtime
	c   *testkit.Collector
	id  string
	cwd string
}

// newRig boots a runtime whose runs play script, with session "f" created
// and subscribed.
func newRig(t *testing.T, script llmserver.Script) *rig {
	t.Helper()
	p, err := llmserver.NewProvider(script, llmserver.WithTest(t))
	testkit.NoError(t, err)
	rt := testkit.Boot(t, actors.Options{Engine: testkit.Engine(p, event.ToolStyleNative)})
	r := &rig{rt: rt, id: "f", cwd: t.TempDir()}
	testkit.NoError(t, rt.Sessions.Create(context.Background(), r.id, event.CreatedPayload{Cwd: r.cwd}))
	r.c = testkit.NewCollector(t, rt.System)
	sub, err := rt.Sessions.Subscribe(context.Background(), r.id, 1, false, r.c.PID())
	testkit.NoError(t, err)
	testkit.Equal(t, sub.ReplayTo, int64(1))
	return r
}

func text(s string) []event.Block { return []event.Block{{Type: "text", Text: s}} }

// Every request of a run's life, typed, with the errors a client maps:
// busy, no run, exists, not found.
func TestFacadeRunLifecycle(t *testing.T) {
	r := newRig(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.ToolCall("b1", "bash", `{"command":"while [ ! -e never ]; do sleep 0.02; done"}`)),
	}})
	ctx := context.Background()
	c := r.rt.Sessions

	testkit.Equal(t, errors.Is(c.Create(ctx, r.id, event.CreatedPayload{}), sessions.ErrExists), true)
	_, err := c.State(ctx, "missing")
	testkit.Equal(t, errors.Is(err, sessions.ErrNotFound), true)
	_, err = c.Meta(ctx, "missing")
	testkit.Equal(t, errors.Is(err, sessions.ErrNotFound), true)

	first, err := c.Prompt(ctx, r.id, sessions.PromptRequest{Content: text("work"), Client: "test"})
	testkit.NoError(t, err)
	testkit.Equal(t, first.Position, 0)
	r.c.WaitKind(t, event.ToolStarted, wait)

	_, err = c.Compact(ctx, r.id, "")
	testkit.Equal(t, errors.Is(err, sessions.ErrBusy), true)

	second, err := c.Prompt(ctx, r.id, sessions.PromptRequest{Content: text("later")})
	testkit.NoError(t, err)
	testkit.Equal(t, second.Position, 1)
	q, err := c.QueueUpdate(ctx, r.id, second.MessageID, text("later, edited"))
	testkit.NoError(t, err)
	testkit.Equal(t, q, sessions.QueueResult{OK: true, Reason: "ok"})
	q, err = c.QueueAmend(ctx, r.id, sessions.AmendRequest{TargetID: "nope", Content: text("x")})
	testkit.NoError(t, err)
	testkit.Equal(t, q.Reason, "target_not_found")
	q, err = c.QueueCancel(ctx, r.id, second.MessageID)
	testkit.NoError(t, err)
	testkit.Equal(t, q.Reason, "ok")

	cancelled, err := c.Cancel(ctx, r.id, "test")
	testkit.NoError(t, err)
	testkit.Equal(t, cancelled, sessions.CancelResult{RunID: first.MessageID, Running: true})
	end := testkit.WaitRunEnded(t, r.c, first.MessageID, wait)
	testkit.Equal(t, end.StopReason, event.StopCancelled)

	// run.ended is written before the turn is gone: wait for the session
	// to say nothing runs.
	testkit.Eventually(t, wait, "the session idles", func() bool {
		idle, err := c.Cancel(ctx, r.id, "nothing")
		return err == nil && !idle.Running
	})
	testkit.Equal(t, errors.Is(c.Decide(ctx, r.id, sessions.Decision{ToolCallID: "b1", Allow: true}), sessions.ErrNoRun), true)
	testkit.Equal(t, errors.Is(c.AbortRetry(ctx, r.id), sessions.ErrNoRun), true)

	seq, err := c.SetMode(ctx, r.id, event.ApprovalYolo)
	testkit.NoError(t, err)
	st, err := c.State(ctx, r.id)
	testkit.NoError(t, err)
	testkit.Equal(t, st.LastSeq, seq)
	testkit.Equal(t, *st.Settings.ApprovalMode, event.ApprovalYolo)
	seq, err = c.ImportHistory(ctx, r.id, event.HistoryImportedPayload{Source: "test", Messages: []event.HistoryMessage{{Role: "user", Content: "before"}}})
	testkit.NoError(t, err)
	testkit.Equal(t, r.c.WaitSeq(t, seq, wait)[seq-1].Kind, event.HistoryImported)
}

// A permission request answered through Decide lets the call run.
func TestFacadeDecide(t *testing.T) {
	p, err := llmserver.NewProvider(llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.ToolCall("w1", "write", `{"path":"a.txt","content":"A"}`)),
		llmserver.Steps(llmserver.Text("written")),
	}}, llmserver.WithTest(t))
	testkit.NoError(t, err)
	eng := testkit.Engine(p, event.ToolStyleNative)
	eng.DefaultMode = event.ApprovalDefault
	rt := testkit.Boot(t, actors.Options{Engine: eng})
	ctx, cwd := context.Background(), t.TempDir()
	testkit.NoError(t, rt.Sessions.Create(ctx, "d", event.CreatedPayload{Cwd: cwd}))
	c := testkit.NewCollector(t, rt.System)
	_, err = rt.Sessions.Subscribe(ctx, "d", 1, false, c.PID())
	testkit.NoError(t, err)
	run := testkit.Prompt(t, rt, "d", "write")
	c.WaitKind(t, event.ToolPermissionRequested, wait)
	testkit.NoError(t, rt.Sessions.Decide(ctx, "d", sessions.Decision{ToolCallID: "w1", Allow: true, OptionID: "allow_once", By: "test"}))
	testkit.Equal(t, testkit.WaitRunEnded(t, c, run, wait).StopReason, event.StopEndTurn)
	b, err := os.ReadFile(cwd + "/a.txt")
	testkit.NoError(t, err)
	testkit.Equal(t, string(b), "A")
}

// A fork inherits its parent's log up to the fork point, without deltas;
// both are listed by their directory.
func TestFacadeForkAndReads(t *testing.T) {
	r := newRig(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("one two"))}})
	ctx := context.Background()
	c := r.rt.Sessions
	testkit.WaitRunEnded(t, r.c, testkit.Prompt(t, r.rt, r.id, "hi"), wait)
	parent, err := c.Meta(ctx, r.id)
	testkit.NoError(t, err)

	id, err := c.Fork(ctx, sessions.ForkRequest{Parent: r.id, Seq: parent.LastSeq, Entry: "e1", Session: event.CreatedPayload{Cwd: r.cwd}})
	testkit.NoError(t, err)
	fork, err := c.Meta(ctx, id)
	testkit.NoError(t, err)
	testkit.Equal(t, fork.ParentID, r.id)
	testkit.Equal(t, fork.ForkedFromSeq, parent.LastSeq)

	inherited, err := c.Inherited(ctx, fork)
	testkit.NoError(t, err)
	var want []int64
	for _, e := range r.c.Events() {
		if e.Kind != event.MessageDelta && e.Seq <= parent.LastSeq {
			want = append(want, e.Seq)
		}
	}
	var got []int64
	for _, e := range inherited {
		got = append(got, e.Seq)
	}
	testkit.DeepEqual(t, got, want)
	none, err := c.Inherited(ctx, parent)
	testkit.NoError(t, err)
	testkit.Equal(t, len(none), 0)

	list, err := c.List(ctx, r.cwd)
	testkit.NoError(t, err)
	testkit.Equal(t, len(list), 2)
	if _, err := os.Stat(c.StorePath()); err != nil {
		t.Fatalf("store path: %v", err)
	}
}

// A user's shell command runs off any mailbox and is recorded; a
// cancelled one still reports what it did.
func TestFacadeBash(t *testing.T) {
	r := newRig(t, llmserver.Script{})
	ctx := context.Background()
	c := r.rt.Sessions
	p, err := c.RunBash(ctx, r.cwd, "echo hi; exit 3")
	testkit.NoError(t, err)
	testkit.Equal(t, p.Output, "hi\n")
	testkit.Equal(t, p.ExitCode, 3)
	seq, err := c.RecordBash(ctx, r.id, p)
	testkit.NoError(t, err)
	var got event.BashExecutedPayload
	testkit.NoError(t, r.c.WaitSeq(t, seq, wait)[seq-1].Decode(&got))
	testkit.DeepEqual(t, got, p)

	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	p, err = c.RunBash(short, r.cwd, "echo started; sleep 30")
	testkit.NoError(t, err)
	testkit.Equal(t, p.Cancelled, true)
	testkit.Equal(t, p.Output, "started\n")
}

func TestFacadeWithoutEngine(t *testing.T) {
	rt := testkit.Boot(t, actors.Options{})
	ctx := context.Background()
	testkit.NoError(t, rt.Sessions.Create(ctx, "logs", event.CreatedPayload{}))
	_, err := rt.Sessions.Prompt(ctx, "logs", sessions.PromptRequest{Content: text("hi")})
	testkit.Equal(t, errors.Is(err, sessions.ErrNoEngine), true)
}

// asyncActor drives a session through Async from inside its Receive and
// reports what it saw.
type asyncActor struct {
	c      *sessions.Client
	id     string
	report chan<- any
}

type asyncResult struct {
	what string
	v    any
	err  error
}

func (a *asyncActor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		as := a.c.Async(ctx)
		as.Subscribe(a.id, 1, false, func(s sessions.Subscribed, err error) {
			a.report <- asyncResult{"subscribe", s.ReplayTo, err}
			as.Prompt(a.id, sessions.PromptRequest{Content: text("hi")}, func(p sessions.PromptResult, err error) {
				a.report <- asyncResult{"prompt", p.MessageID, err}
			})
		})
		as.Decide(a.id, sessions.Decision{ToolCallID: "x"}, func(err error) { a.report <- asyncResult{"decide", nil, err} })
		as.State("", func(_ sessions.State, err error) { a.report <- asyncResult{"unroutable", nil, err} })
	case *sessions.Events:
		for _, e := range m.Events {
			a.report <- e
		}
	}
}

// Async answers on the actor's mailbox with the same types and errors; a
// request that cannot be routed is an *UnreachableError.
func TestFacadeAsync(t *testing.T) {
	r := newRig(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("hello"))}})
	report := make(chan any, 1024)
	pid := r.rt.System.Root.Spawn(actor.PropsFromProducer(func() actor.Actor {
		return &asyncActor{c: r.rt.Sessions, id: r.id, report: report}
	}))
	t.Cleanup(func() { r.rt.System.Root.Stop(pid) })
	results := map[string]asyncResult{}
	var runID string
	var ended bool
	for !ended {
		switch m := testkit.ChanRead(t, report, wait).(type) {
		case asyncResult:
			results[m.what] = m
			if m.what == "prompt" {
				runID = m.v.(string)
			}
		case event.Event:
			var p event.RunEndedPayload
			ended = m.Kind == event.RunEnded && m.Decode(&p) == nil && p.RunID == runID && runID != ""
		}
	}
	testkit.NoError(t, results["subscribe"].err)
	testkit.NoError(t, results["prompt"].err)
	testkit.Equal(t, errors.Is(results["decide"].err, sessions.ErrNoRun), true)
	var unreachable *sessions.UnreachableError
	testkit.Equal(t, errors.As(results["unroutable"].err, &unreachable), true)
}
