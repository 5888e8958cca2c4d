package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/sessions/internal/queue"
	"github.com/troupehq/troupe/actors/sessions/internal/run"
	"github.com/troupehq/troupe/actors/sessions/internal/session"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/runtime/tools"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

const waitLong = 15 * time.Second

// newGatedRig is newRig with a gate in front of the scripted provider, so
// a test can hold a request until it has queued what it needs.
func newGatedRig(t *testing.T, style string, script llmserver.Script, tune func(*session.Engine)) (*engineRig, *gatedProvider) {
	t.Helper()
	var g *gatedProvider
	r := newRigWith(t, style, script, tune, func(p *llmserver.Provider) llm.Provider {
		g = &gatedProvider{inner: p, gates: map[int]*gate{}}
		return g
	})
	return r, g
}

// gatedProvider holds chosen requests (0-based, in call order) until the
// test releases them.
type gatedProvider struct {
	inner llm.Provider
	mu    sync.Mutex
	calls int
	gates map[int]*gate
}

type gate struct{ entered, release chan struct{} }

func (g *gatedProvider) hold(n int) *gate {
	g.mu.Lock()
	defer g.mu.Unlock()
	gt := &gate{entered: make(chan struct{}), release: make(chan struct{})}
	g.gates[n] = gt
	return gt
}

func (g *gatedProvider) Stream(ctx context.Context, req llm.Request, sink func(llm.Chunk) error) (*llm.Response, error) {
	g.mu.Lock()
	n := g.calls
	g.calls++
	gt := g.gates[n]
	g.mu.Unlock()
	if gt != nil {
		close(gt.entered)
		select {
		case <-gt.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.inner.Stream(ctx, req, sink)
}

func text(s string) []event.Block { return []event.Block{{Type: "text", Text: s}} }

// queueMsg queues a prompt with a delivery and returns its id.
func (r *engineRig) queueMsg(t *testing.T, delivery, s string) string {
	t.Helper()
	res, err := r.rt.Sessions.Prompt(context.Background(), r.id, sessions.PromptRequest{Content: text(s), Delivery: delivery})
	testkit.NoError(t, err)
	return res.MessageID
}

func (r *engineRig) amend(t *testing.T, req sessions.AmendRequest) sessions.QueueResult {
	t.Helper()
	res, err := r.rt.Sessions.QueueAmend(context.Background(), r.id, req)
	testkit.NoError(t, err)
	return res
}

func (r *engineRig) cancel(t *testing.T) sessions.CancelResult {
	t.Helper()
	res, err := r.rt.Sessions.Cancel(context.Background(), r.id, "user")
	testkit.NoError(t, err)
	return res
}

func (r *engineRig) settings(t *testing.T, s event.Settings) {
	t.Helper()
	_, err := r.rt.Sessions.SetSettings(context.Background(), r.id, s)
	testkit.NoError(t, err)
}

func payloads[T any](t testing.TB, evs []event.Event, kind event.Kind) []T {
	t.Helper()
	var out []T
	for _, e := range evs {
		if e.Kind != kind {
			continue
		}
		var p T
		testkit.NoError(t, e.Decode(&p))
		out = append(out, p)
	}
	return out
}

// deltaText joins the deltas of one channel.
func deltaText(t testing.TB, evs []event.Event, channel string) string {
	var b strings.Builder
	for _, p := range payloads[event.MessageDeltaPayload](t, evs, event.MessageDelta) {
		if p.Channel == channel {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func lastMsg(req llm.Request) llm.Message { return req.Messages[len(req.Messages)-1] }

func ptr[T any](v T) *T { return &v }

// releaseFile is a bash command that waits until the test creates name in
// the cwd: a tool that runs exactly as long as the test needs.
func waitForFile(name string) string {
	return fmt.Sprintf(`{"command":"while [ ! -e %s ]; do sleep 0.02; done; echo released"}`, name)
}

func touch(t *testing.T, dir, name string) {
	t.Helper()
	testkit.NoError(t, os.WriteFile(filepath.Join(dir, name), nil, 0o644))
}

// --- steering ---------------------------------------------------------------

func TestSteerDuringToolsSkipsTheRest(t *testing.T) {
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.ToolCall("b1", "bash", waitForFile("go")), llmserver.ToolCall("l1", "ls", `{}`)),
		llmserver.Steps(llmserver.Text("changed course")),
	}}, nil)
	runID := testkit.Prompt(t, r.rt, r.id, "do two things")
	r.c.WaitKind(t, event.ToolStarted, waitLong)
	steer := r.queueMsg(t, event.DeliverySteer, "stop, do this instead")
	touch(t, r.cwd, "go")
	end := testkit.WaitRunEnded(t, r.c, runID, waitLong)
	testkit.Equal(t, end.StopReason, event.StopEndTurn)

	evs := r.c.Events()
	testkit.DeepEqual(t, toolStatuses(evs), []string{"bash:success", "ls:skipped"})
	done := payloads[event.ToolCompletedPayload](t, evs, event.ToolCompleted)
	testkit.Equal(t, done[1].ToolCallID, "l1")
	testkit.Equal(t, done[1].Output, "Skipped due to queued user message.")
	del := payloads[event.PromptDeliveredPayload](t, evs, event.PromptDelivered)
	testkit.DeepEqual(t, del, []event.PromptDeliveredPayload{{MessageID: steer, RunID: runID, Delivery: event.DeliverySteer}})
	testkit.Equal(t, testkit.CountKind(evs, event.RunEnded), 1)
	testkit.Equal(t, testkit.CountKind(evs, event.RunStarted), 1)

	reqs := r.llm.Requests()
	testkit.Equal(t, len(reqs), 2)
	msgs := reqs[1].Messages
	last := lastMsg(reqs[1])
	testkit.Equal(t, last.Role, llm.RoleUser)
	testkit.Equal(t, last.Content, "stop, do this instead")
	// Both calls were answered before the steer, the skipped one included.
	testkit.Equal(t, msgs[len(msgs)-3].ToolCallID, "b1")
	testkit.Equal(t, msgs[len(msgs)-2].ToolCallID, "l1")
	testkit.Equal(t, msgs[len(msgs)-2].Content, run.SkippedOutput)
	st, err := r.rt.Sessions.State(context.Background(), r.id)
	testkit.NoError(t, err)
	testkit.Equal(t, st.Queued, 0)
}

func TestSteeringModes(t *testing.T) {
	for _, mode := range []string{event.QueueAll, event.QueueOneAtATime} {
		t.Run(mode, func(t *testing.T) {
			replies := []llmserver.Reply{
				llmserver.Steps(llmserver.ToolCall("b1", "bash", waitForFile("go")), llmserver.ToolCall("l1", "ls", `{}`)),
				llmserver.Steps(llmserver.Text("took the first")),
			}
			if mode == event.QueueOneAtATime {
				replies = append(replies, llmserver.Steps(llmserver.Text("took the second")))
			}
			r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: replies}, nil)
			r.settings(t, event.Settings{SteeringMode: ptr(mode)})
			runID := testkit.Prompt(t, r.rt, r.id, "work")
			r.c.WaitKind(t, event.ToolStarted, waitLong)
			s1 := r.queueMsg(t, event.DeliverySteer, "steer one")
			s2 := r.queueMsg(t, event.DeliverySteer, "steer two")
			touch(t, r.cwd, "go")
			end := testkit.WaitRunEnded(t, r.c, runID, waitLong)
			testkit.Equal(t, end.StopReason, event.StopEndTurn)

			evs := r.c.Events()
			testkit.DeepEqual(t, toolStatuses(evs), []string{"bash:success", "ls:skipped"})
			var ids []string
			for _, d := range payloads[event.PromptDeliveredPayload](t, evs, event.PromptDelivered) {
				testkit.Equal(t, d.RunID, runID)
				ids = append(ids, d.MessageID)
			}
			testkit.DeepEqual(t, ids, []string{s1, s2})
			testkit.Equal(t, testkit.CountKind(evs, event.RunEnded), 1)

			reqs := r.llm.Requests()
			if mode == event.QueueAll {
				testkit.Equal(t, len(reqs), 2)
				msgs := reqs[1].Messages
				testkit.Equal(t, msgs[len(msgs)-2].Content, "steer one")
				testkit.Equal(t, msgs[len(msgs)-1].Content, "steer two")
				return
			}
			testkit.Equal(t, len(reqs), 3)
			testkit.Equal(t, lastMsg(reqs[1]).Content, "steer one")
			msgs := reqs[2].Messages
			testkit.Equal(t, msgs[len(msgs)-2].Content, "took the first")
			testkit.Equal(t, msgs[len(msgs)-1].Content, "steer two")
		})
	}
}

// --- follow-up --------------------------------------------------------------

func TestFollowUpModes(t *testing.T) {
	for _, mode := range []string{event.QueueAll, event.QueueOneAtATime} {
		t.Run(mode, func(t *testing.T) {
			replies := []llmserver.Reply{
				llmserver.Steps(llmserver.Text("first answer")),
				llmserver.Steps(llmserver.Text("second answer")),
			}
			if mode == event.QueueOneAtATime {
				replies = append(replies, llmserver.Steps(llmserver.Text("third answer")))
			}
			r, g := newGatedRig(t, event.ToolStyleNative, llmserver.Script{Replies: replies}, nil)
			r.settings(t, event.Settings{FollowUpMode: ptr(mode)})
			held := g.hold(0)
			runID := testkit.Prompt(t, r.rt, r.id, "start")
			testkit.ChanRead(t, held.entered, waitLong)
			f1 := r.queueMsg(t, event.DeliveryFollowUp, "also this")
			f2 := r.queueMsg(t, event.DeliveryFollowUp, "and that")
			close(held.release)
			end := testkit.WaitRunEnded(t, r.c, runID, waitLong)
			testkit.Equal(t, end.StopReason, event.StopEndTurn)

			evs := r.c.Events()
			testkit.Equal(t, testkit.CountKind(evs, event.RunStarted), 1)
			testkit.Equal(t, testkit.CountKind(evs, event.RunEnded), 1)
			var ids []string
			for _, d := range payloads[event.PromptDeliveredPayload](t, evs, event.PromptDelivered) {
				testkit.Equal(t, d.Delivery, event.DeliveryFollowUp)
				testkit.Equal(t, d.RunID, runID)
				ids = append(ids, d.MessageID)
			}
			testkit.DeepEqual(t, ids, []string{f1, f2})

			reqs := r.llm.Requests()
			if mode == event.QueueAll {
				testkit.Equal(t, len(reqs), 2)
				msgs := reqs[1].Messages
				testkit.Equal(t, msgs[len(msgs)-3].Content, "first answer")
				testkit.Equal(t, msgs[len(msgs)-2].Content, "also this")
				testkit.Equal(t, msgs[len(msgs)-1].Content, "and that")
				return
			}
			testkit.Equal(t, len(reqs), 3)
			testkit.Equal(t, lastMsg(reqs[1]).Content, "also this")
			testkit.Equal(t, lastMsg(reqs[2]).Content, "and that")
			msgs := reqs[2].Messages
			testkit.Equal(t, msgs[len(msgs)-2].Content, "second answer")
		})
	}
}

// A follow-up is not a steer: it waits past tool boundaries until the
// model answers without calls.
func TestFollowUpWaitsForTheEndOfTheTurn(t *testing.T) {
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.ToolCall("b1", "bash", waitForFile("go")), llmserver.ToolCall("l1", "ls", `{}`)),
		llmserver.Steps(llmserver.Text("tools done")),
		llmserver.Steps(llmserver.Text("follow-up done")),
	}}, nil)
	runID := testkit.Prompt(t, r.rt, r.id, "work")
	r.c.WaitKind(t, event.ToolStarted, waitLong)
	f := r.queueMsg(t, event.DeliveryFollowUp, "afterwards, this")
	touch(t, r.cwd, "go")
	testkit.WaitRunEnded(t, r.c, runID, waitLong)
	evs := r.c.Events()
	testkit.DeepEqual(t, toolStatuses(evs), []string{"bash:success", "ls:success"})
	testkit.Equal(t, testkit.CountKind(evs, event.RunEnded), 1)
	reqs := r.llm.Requests()
	testkit.Equal(t, len(reqs), 3)
	testkit.Equal(t, lastMsg(reqs[1]).ToolCallID, "l1")
	testkit.Equal(t, lastMsg(reqs[2]).Content, "afterwards, this")
	del := payloads[event.PromptDeliveredPayload](t, evs, event.PromptDelivered)
	testkit.Equal(t, len(del), 1)
	testkit.Equal(t, del[0].MessageID, f)
}

// A steer or follow-up with no run to join starts one.
func TestFollowUpWithNothingRunningStartsARun(t *testing.T) {
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("hi"))}}, nil)
	id := r.queueMsg(t, event.DeliveryFollowUp, "hello")
	end := testkit.WaitRunEnded(t, r.c, id, waitLong)
	testkit.Equal(t, end.StopReason, event.StopEndTurn)
	testkit.Equal(t, lastMsg(r.llm.Requests()[0]).Content, "hello")
}

// --- amend ------------------------------------------------------------------

func runStarts(t testing.TB, evs []event.Event) []string {
	var ids []string
	for _, p := range payloads[event.RunStartedPayload](t, evs, event.RunStarted) {
		ids = append(ids, p.RunID)
	}
	return ids
}

func TestAmendRunningHead(t *testing.T) {
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("partial "), llmserver.Delay(time.Minute), llmserver.Text("never")),
		llmserver.Steps(llmserver.Text("answer to the amendment")),
		llmserver.Steps(llmserver.Text("answer to second")),
	}}, nil)
	first := testkit.Prompt(t, r.rt, r.id, "first")
	second := testkit.Prompt(t, r.rt, r.id, "second")
	r.c.WaitKind(t, event.MessageDelta, waitLong)
	res := r.amend(t, sessions.AmendRequest{TargetID: first, Content: text("first, amended")})
	if !res.OK || res.Reason != "ok" || res.MessageID == "" || res.MessageID == first {
		t.Fatalf("amend result %+v", res)
	}
	amended := res.MessageID
	end := testkit.WaitRunEnded(t, r.c, first, waitLong)
	testkit.Equal(t, end.StopReason, event.StopCancelled)
	testkit.Equal(t, testkit.WaitRunEnded(t, r.c, amended, waitLong).StopReason, event.StopEndTurn)
	testkit.WaitRunEnded(t, r.c, second, waitLong)

	evs := r.c.Events()
	testkit.DeepEqual(t, runStarts(t, evs), []string{first, amended, second})
	am := payloads[event.PromptChangedPayload](t, evs, event.PromptAmended)
	testkit.Equal(t, len(am), 1)
	testkit.Equal(t, am[0].MessageID, first)

	reqs := r.llm.Requests()
	testkit.Equal(t, len(reqs), 3)
	var got []string
	for _, m := range reqs[1].Messages {
		got = append(got, string(m.Role)+":"+m.Content)
	}
	// The partial answer stays in the history the replacement runs on.
	testkit.DeepEqual(t, got, []string{"user:first", "assistant:partial", "user:first, amended"})
}

func TestAmendRunningHeadReplacingQueue(t *testing.T) {
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("partial"), llmserver.Delay(time.Minute)),
		llmserver.Steps(llmserver.Text("replacement ran")),
	}}, nil)
	first := testkit.Prompt(t, r.rt, r.id, "first")
	second := testkit.Prompt(t, r.rt, r.id, "second")
	r.c.WaitKind(t, event.MessageDelta, waitLong)
	res := r.amend(t, sessions.AmendRequest{TargetID: first, Content: text("instead"), ReplaceQueue: true})
	testkit.Equal(t, res.Reason, "ok")
	testkit.WaitRunEnded(t, r.c, res.MessageID, waitLong)
	evs := r.c.Events()
	testkit.DeepEqual(t, runStarts(t, evs), []string{first, res.MessageID})
	cancelled := payloads[event.PromptChangedPayload](t, evs, event.PromptCancelled)
	testkit.Equal(t, len(cancelled), 1)
	testkit.Equal(t, cancelled[0].MessageID, second)
	st, err := r.rt.Sessions.State(context.Background(), r.id)
	testkit.NoError(t, err)
	testkit.Equal(t, st.Queued, 0)
}

func TestAmendQueuedEntryEditsInPlace(t *testing.T) {
	r, g := newGatedRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("one")),
		llmserver.Steps(llmserver.Text("two")),
	}}, nil)
	held := g.hold(0)
	first := testkit.Prompt(t, r.rt, r.id, "first")
	second := testkit.Prompt(t, r.rt, r.id, "second")
	testkit.ChanRead(t, held.entered, waitLong)
	res := r.amend(t, sessions.AmendRequest{TargetID: second, Content: text("second, amended")})
	if !res.OK || res.Reason != "ok" || res.MessageID != second {
		t.Fatalf("amend result %+v", res)
	}
	close(held.release)
	testkit.Equal(t, testkit.WaitRunEnded(t, r.c, first, waitLong).StopReason, event.StopEndTurn)
	testkit.WaitRunEnded(t, r.c, second, waitLong)
	evs := r.c.Events()
	testkit.DeepEqual(t, runStarts(t, evs), []string{first, second})
	testkit.Equal(t, testkit.CountKind(evs, event.PromptAmended), 0)
	up := payloads[event.PromptChangedPayload](t, evs, event.PromptUpdated)
	testkit.Equal(t, len(up), 1)
	testkit.Equal(t, up[0].MessageID, second)
	testkit.Equal(t, lastMsg(r.llm.Requests()[1]).Content, "second, amended")
}

func TestAmendCompletedTarget(t *testing.T) {
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("done")),
		llmserver.Steps(llmserver.Text("sent anyway")),
	}}, nil)
	first := testkit.Prompt(t, r.rt, r.id, "first")
	testkit.WaitRunEnded(t, r.c, first, waitLong)
	res := r.amend(t, sessions.AmendRequest{TargetID: first, Content: text("too late")})
	if res.OK || res.Reason != "target_completed" {
		t.Fatalf("amend of a finished prompt: %#v", res)
	}
	testkit.Equal(t, testkit.CountKind(r.c.Events(), event.PromptQueued), 1)

	// send_anyway forwards it as a new prompt and says which.
	res = r.amend(t, sessions.AmendRequest{TargetID: first, Content: text("too late, but send"), OnTargetCompleted: "send_anyway"})
	if !res.OK || res.MessageID == "" {
		t.Fatalf("send_anyway reply %#v, want the new id", res)
	}
	testkit.WaitRunEnded(t, r.c, res.MessageID, waitLong)
	testkit.Equal(t, lastMsg(r.llm.Requests()[1]).Content, "too late, but send")
}

// --- cancel mid-bash --------------------------------------------------------

// alive reports whether pid exists and is not a zombie (an orphan may wait
// a while for init to reap it; a zombie is dead for our purposes).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func readPid(t *testing.T, path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0
	}
	return pid
}

func TestCancelMidBashKillsTheTree(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("process checks read /proc")
	}
	cmd := `echo $$ > sh.pid
sleep 30 & echo $! > child.pid
sh -c 'sleep 30 & echo $! > grand.pid; wait' & echo $! > sub.pid
wait`
	args, _ := json.Marshal(map[string]string{"command": cmd})
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.ToolCall("b1", "bash", string(args))),
	}}, nil)
	names := []string{"sh.pid", "child.pid", "sub.pid", "grand.pid"}
	pids := make([]int, len(names))
	t.Cleanup(func() {
		for _, pid := range pids {
			if pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	runID := testkit.Prompt(t, r.rt, r.id, "sleep")
	testkit.Eventually(t, waitLong, "all pids written", func() bool {
		for i, n := range names {
			pids[i] = readPid(t, filepath.Join(r.cwd, n))
			if pids[i] == 0 {
				return false
			}
		}
		return true
	})
	for i, pid := range pids {
		if !alive(pid) {
			t.Fatalf("%s %d is not running before the cancel", names[i], pid)
		}
	}
	reply := r.cancel(t)
	testkit.Equal(t, reply.RunID, runID)
	end := testkit.WaitRunEnded(t, r.c, runID, waitLong)
	testkit.Equal(t, end.StopReason, event.StopCancelled)
	testkit.DeepEqual(t, toolStatuses(r.c.Events()), []string{"bash:cancelled"})
	for i, pid := range pids {
		testkit.Eventually(t, waitLong, names[i]+" gone", func() bool { return !alive(pid) })
	}
	if len(r.llm.Requests()) != 1 {
		t.Fatalf("a cancelled run asked the model again")
	}
}

// --- approvals --------------------------------------------------------------

func (r *engineRig) decide(t *testing.T, d sessions.Decision) {
	t.Helper()
	testkit.NoError(t, r.rt.Sessions.Decide(context.Background(), r.id, d))
}

func permissionRequests(t testing.TB, evs []event.Event) []string {
	var ids []string
	for _, p := range payloads[event.PermissionRequestedPayload](t, evs, event.ToolPermissionRequested) {
		ids = append(ids, p.ToolCallID)
	}
	return ids
}

func TestApprovalDefaultPausesUntilDecided(t *testing.T) {
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.ToolCall("w1", "write", `{"path":"a.txt","content":"A"}`)),
		llmserver.Steps(llmserver.Text("written")),
	}}, func(e *session.Engine) { e.DefaultMode = event.ApprovalDefault })
	runID := testkit.Prompt(t, r.rt, r.id, "write")
	r.c.WaitKind(t, event.ToolPermissionRequested, waitLong)
	// Nothing moves while the request waits (the settle time only gives a
	// wrong implementation the chance to show itself).
	time.Sleep(100 * time.Millisecond)
	evs := r.c.Events()
	testkit.Equal(t, testkit.CountKind(evs, event.ToolCompleted), 0)
	testkit.Equal(t, testkit.CountKind(evs, event.RunEnded), 0)
	testkit.Equal(t, len(r.llm.Requests()), 1)
	if _, err := os.Stat(filepath.Join(r.cwd, "a.txt")); err == nil {
		t.Fatal("the write ran before it was allowed")
	}
	st := payloads[event.ToolStartedPayload](t, evs, event.ToolStarted)
	if len(st) != 1 || !st[0].AwaitingApproval {
		t.Fatalf("tool.started %+v", st)
	}
	r.decide(t, sessions.Decision{ToolCallID: "w1", Allow: true, OptionID: "allow_once", By: "test"})
	testkit.Equal(t, testkit.WaitRunEnded(t, r.c, runID, waitLong).StopReason, event.StopEndTurn)
	testkit.DeepEqual(t, toolStatuses(r.c.Events()), []string{"write:success"})
	got, err := os.ReadFile(filepath.Join(r.cwd, "a.txt"))
	testkit.NoError(t, err)
	testkit.Equal(t, string(got), "A")
	res := payloads[event.PermissionResolvedPayload](t, r.c.Events(), event.ToolPermissionResolved)
	testkit.Equal(t, len(res), 1)
	testkit.Equal(t, res[0].Outcome, "allowed")
}

func TestApprovalAllowAlways(t *testing.T) {
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.ToolCall("w1", "write", `{"path":"a.txt","content":"A"}`)),
		llmserver.Steps(llmserver.ToolCall("w2", "write", `{"path":"b.txt","content":"B"}`)),
		llmserver.Steps(llmserver.Text("both written")),
		llmserver.Steps(llmserver.ToolCall("w3", "write", `{"path":"c.txt","content":"C"}`)),
		llmserver.Steps(llmserver.Text("third written")),
	}}, func(e *session.Engine) { e.DefaultMode = event.ApprovalDefault })
	runID := testkit.Prompt(t, r.rt, r.id, "write two")
	r.c.WaitKind(t, event.ToolPermissionRequested, waitLong)
	r.decide(t, sessions.Decision{ToolCallID: "w1", Allow: true, Always: true, OptionID: "allow_always", By: "test"})
	testkit.WaitRunEnded(t, r.c, runID, waitLong)
	// A later run of the same session remembers the choice too.
	run2 := testkit.Prompt(t, r.rt, r.id, "write a third")
	testkit.Equal(t, testkit.WaitRunEnded(t, r.c, run2, waitLong).StopReason, event.StopEndTurn)
	evs := r.c.Events()
	testkit.DeepEqual(t, permissionRequests(t, evs), []string{"w1"})
	testkit.DeepEqual(t, toolStatuses(evs), []string{"write:success", "write:success", "write:success"})
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		if _, err := os.Stat(filepath.Join(r.cwd, f)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestApprovalYoloNeverAsks(t *testing.T) {
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.ToolCall("w1", "write", `{"path":"a.txt","content":"A"}`), llmserver.ToolCall("b1", "bash", `{"command":"echo hi"}`)),
		llmserver.Steps(llmserver.Text("ok")),
	}}, func(e *session.Engine) { e.DefaultMode = event.ApprovalDefault })
	r.settings(t, event.Settings{ApprovalMode: ptr(event.ApprovalYolo)})
	runID := testkit.Prompt(t, r.rt, r.id, "go")
	testkit.WaitRunEnded(t, r.c, runID, waitLong)
	evs := r.c.Events()
	testkit.DeepEqual(t, toolStatuses(evs), []string{"write:success", "bash:success"})
	testkit.Equal(t, testkit.CountKind(evs, event.ToolPermissionRequested), 0)
	testkit.Equal(t, testkit.CountKind(evs, event.ToolPermissionResolved), 0)
}

func TestApprovalAutoEdit(t *testing.T) {
	outside := t.TempDir()
	outArgs, _ := json.Marshal(map[string]string{"path": filepath.Join(outside, "o.txt"), "content": "O"})
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(
			llmserver.ToolCall("w1", "write", `{"path":"in.txt","content":"I"}`),
			llmserver.ToolCall("b1", "bash", `{"command":"echo ran > bash.txt"}`),
			llmserver.ToolCall("w2", "write", string(outArgs)),
		),
		llmserver.Steps(llmserver.Text("ok")),
	}}, func(e *session.Engine) { e.DefaultMode = event.ApprovalDefault })
	r.settings(t, event.Settings{ApprovalMode: ptr(event.ApprovalAutoEdit)})
	runID := testkit.Prompt(t, r.rt, r.id, "go")
	// Every call needing approval is asked about up front, and the answers
	// may come in any order; the calls still run in order.
	r.c.WaitFor(t, waitLong, func(evs []event.Event) bool { return len(permissionRequests(t, evs)) == 2 })
	testkit.DeepEqual(t, permissionRequests(t, r.c.Events()), []string{"b1", "w2"})
	r.decide(t, sessions.Decision{ToolCallID: "w2", Allow: false, Reason: "outside", By: "test"})
	r.decide(t, sessions.Decision{ToolCallID: "b1", Allow: true, OptionID: "allow_once", By: "test"})
	testkit.WaitRunEnded(t, r.c, runID, waitLong)
	testkit.DeepEqual(t, toolStatuses(r.c.Events()), []string{"write:success", "bash:success", "write:error"})
	if _, err := os.Stat(filepath.Join(outside, "o.txt")); err == nil {
		t.Fatal("the denied write outside the cwd ran")
	}
	if _, err := os.Stat(filepath.Join(r.cwd, "bash.txt")); err != nil {
		t.Fatal("the allowed bash did not run")
	}
}

// --- stop reasons -----------------------------------------------------------

func TestEveryStopReason(t *testing.T) {
	cases := []struct {
		name    string
		replies []llmserver.Reply
		tune    func(*session.Engine)
		cancel  bool
		want    string
		errHas  string
	}{
		{name: "end_turn", want: event.StopEndTurn, replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("fine"))}},
		{name: "max_tokens", want: event.StopMaxTokens, replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("cut sho"), llmserver.Finish("length"))}},
		{name: "refusal", want: event.StopRefusal, replies: []llmserver.Reply{llmserver.Steps(llmserver.Finish("content_filter"))}},
		{name: "max_turn_requests", want: event.StopMaxTurnRequests, tune: func(e *session.Engine) { e.MaxSteps = 1 }, replies: []llmserver.Reply{
			llmserver.Steps(llmserver.ToolCall("l1", "ls", `{}`)), llmserver.Steps(llmserver.Text("final")),
		}},
		{name: "cancelled", want: event.StopCancelled, cancel: true, replies: []llmserver.Reply{
			llmserver.Steps(llmserver.Text("wait"), llmserver.Delay(time.Minute)),
		}},
		{name: "error", want: event.StopError, errHas: "boom", tune: func(e *session.Engine) { e.Retry.Enabled = false }, replies: []llmserver.Reply{
			llmserver.Steps(llmserver.Text("half"), llmserver.StreamError(llmserver.APIError{Status: 500, Message: "boom"})),
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: tc.replies}, tc.tune)
			runID := testkit.Prompt(t, r.rt, r.id, "go")
			if tc.cancel {
				r.c.WaitKind(t, event.MessageDelta, waitLong)
				r.cancel(t)
			}
			end := testkit.WaitRunEnded(t, r.c, runID, waitLong)
			testkit.Equal(t, end.StopReason, tc.want)
			if !strings.Contains(end.Error, tc.errHas) {
				t.Fatalf("error %q, want it to mention %q", end.Error, tc.errHas)
			}
			evs := r.c.Events()
			testkit.Equal(t, testkit.CountKind(evs, event.RunEnded), 1)
			// Every step that started ended, and the session is idle again.
			testkit.Equal(t, testkit.CountKind(evs, event.StepStarted), testkit.CountKind(evs, event.StepEnded))
			st, err := r.rt.Sessions.State(context.Background(), r.id)
			testkit.NoError(t, err)
			testkit.Equal(t, st.ActiveRun, "")
			if tc.name == "error" {
				mc := payloads[event.MessageCompletedPayload](t, evs, event.MessageCompleted)
				if len(mc) != 1 || mc[0].Text != "half" {
					t.Fatalf("partial message %+v", mc)
				}
			}
		})
	}
}

// --- text tool calls --------------------------------------------------------

func TestTextToolCallsEveryFormat(t *testing.T) {
	for _, f := range []llmserver.TagFormat{llmserver.FormatQwen, llmserver.FormatGemma, llmserver.FormatPipe} {
		for _, inner := range []llmserver.InnerForm{llmserver.InnerJSON, llmserver.InnerCall} {
			t.Run(string(f)+"/"+string(inner), func(t *testing.T) {
				file := fmt.Sprintf("%s-%s.txt", f, inner)
				r := newRig(t, event.ToolStyleText, llmserver.Script{Replies: []llmserver.Reply{
					llmserver.Steps(
						llmserver.Text("<think>plan the write</think>Writing now."),
						llmserver.TextToolCall(f, inner, "write", map[string]any{"path": file, "content": "via " + string(f)}),
					),
					llmserver.Steps(llmserver.Text("written")),
				}}, nil)
				runID := testkit.Prompt(t, r.rt, r.id, "write")
				testkit.Equal(t, testkit.WaitRunEnded(t, r.c, runID, waitLong).StopReason, event.StopEndTurn)
				got, err := os.ReadFile(filepath.Join(r.cwd, file))
				testkit.NoError(t, err)
				testkit.Equal(t, string(got), "via "+string(f))
				evs := r.c.Events()
				testkit.DeepEqual(t, toolStatuses(evs), []string{"write:success"})
				st := payloads[event.ToolStartedPayload](t, evs, event.ToolStarted)
				testkit.Equal(t, st[0].Origin, "text")

				visible := deltaText(t, evs, event.ChannelText)
				if strings.Contains(visible, "think") || strings.Contains(visible, "plan") || strings.Contains(visible, "tool_call") || !strings.Contains(visible, "Writing now.") {
					t.Fatalf("visible text %q", visible)
				}
				if th := deltaText(t, evs, event.ChannelThinking); !strings.Contains(th, "plan the write") {
					t.Fatalf("thinking %q", th)
				}
				reqs := r.llm.Requests()
				testkit.Equal(t, len(reqs), 2)
				msgs := reqs[1].Messages
				asst := msgs[len(msgs)-2]
				testkit.Equal(t, asst.Role, llm.RoleAssistant)
				if !strings.Contains(asst.Content, "<think>plan the write</think>") || !strings.Contains(asst.Content, "tool_call") {
					t.Fatalf("history keeps the reply as written: %q", asst.Content)
				}
				res := lastMsg(reqs[1])
				if res.Role != llm.RoleUser || !strings.HasPrefix(res.Content, "Tool results:\n\n[write] ") {
					t.Fatalf("results message %+v", res)
				}
			})
		}
	}
}

func TestNativeStyleExecutesTextToolCalls(t *testing.T) {
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("Let me write."), llmserver.TextToolCall(llmserver.FormatQwen, llmserver.InnerJSON, "write", map[string]any{"path": "n.txt", "content": "native"})),
		llmserver.Steps(llmserver.Text("done")),
	}}, nil)
	runID := testkit.Prompt(t, r.rt, r.id, "write")
	testkit.WaitRunEnded(t, r.c, runID, waitLong)
	got, err := os.ReadFile(filepath.Join(r.cwd, "n.txt"))
	testkit.NoError(t, err)
	testkit.Equal(t, string(got), "native")
	reqs := r.llm.Requests()
	testkit.Equal(t, len(reqs), 2)
	if len(reqs[0].Tools) == 0 {
		t.Fatal("native style offered no tools")
	}
	if res := lastMsg(reqs[1]); !strings.HasPrefix(res.Content, "Tool results:\n\n[write] ") {
		t.Fatalf("a text call's result goes back as text: %+v", res)
	}
	if v := deltaText(t, r.c.Events(), event.ChannelText); strings.Contains(v, "tool_call") {
		t.Fatalf("visible text %q", v)
	}
}

// --- a panicking tool -------------------------------------------------------

type panicTool struct{}

func (panicTool) Name() string                { return "explode" }
func (panicTool) Description() string         { return "panics" }
func (panicTool) Parameters() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (panicTool) Category() tools.Category    { return tools.CategoryInfo }
func (panicTool) Run(context.Context, tools.Call, func(string)) (tools.Result, error) {
	panic("kaboom")
}

func TestToolPanicFailsOnlyThatCall(t *testing.T) {
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.ToolCall("p1", "explode", `{}`), llmserver.ToolCall("l1", "ls", `{}`)),
		llmserver.Steps(llmserver.Text("the tool broke")),
		llmserver.Steps(llmserver.Text("still here")),
	}}, func(e *session.Engine) {
		e.Tools = func(session.State) []tools.Tool { return append(tools.Builtins(), panicTool{}) }
	})
	runID := testkit.Prompt(t, r.rt, r.id, "explode")
	testkit.Equal(t, testkit.WaitRunEnded(t, r.c, runID, waitLong).StopReason, event.StopEndTurn)
	evs := r.c.Events()
	testkit.DeepEqual(t, toolStatuses(evs), []string{"explode:error", "ls:success"})
	msgs := r.llm.Requests()[1].Messages
	var told string
	for _, m := range msgs {
		if m.ToolCallID == "p1" {
			told = m.Content
		}
	}
	if !strings.HasPrefix(told, "Error") || !strings.Contains(told, "kaboom") {
		t.Fatalf("model was told %q", told)
	}
	// The session goes on serving.
	run2 := testkit.Prompt(t, r.rt, r.id, "again")
	testkit.Equal(t, testkit.WaitRunEnded(t, r.c, run2, waitLong).StopReason, event.StopEndTurn)
	testkit.Equal(t, testkit.CountKind(r.c.Events(), event.RunInterrupted), 0)
}

// --- history stays well-formed after a cancel -------------------------------

// answered checks that every native tool call in the history is followed by
// exactly one tool message answering it, as OpenAI-compatible servers require.
func answered(t *testing.T, msgs []llm.Message) {
	t.Helper()
	for i, m := range msgs {
		if m.Role != llm.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		got := map[string]int{}
		for _, n := range msgs[i+1:] {
			if n.Role != llm.RoleTool {
				break
			}
			got[n.ToolCallID]++
		}
		for _, tc := range m.ToolCalls {
			if got[tc.ID] != 1 {
				t.Fatalf("tool call %s of message %d answered %d times: %+v", tc.ID, i, got[tc.ID], msgs)
			}
		}
	}
}

func TestCancelAnswersEveryToolCall(t *testing.T) {
	for _, where := range []string{"tool", "approval"} {
		t.Run(where, func(t *testing.T) {
			first := llmserver.ToolCall("b1", "bash", waitForFile("never"))
			mode := event.ApprovalYolo
			if where == "approval" {
				first = llmserver.ToolCall("b1", "write", `{"path":"a.txt","content":"A"}`)
				mode = event.ApprovalDefault
			}
			r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{
				llmserver.Steps(first, llmserver.ToolCall("l1", "ls", `{}`)),
				llmserver.Steps(llmserver.Text("next answer")),
			}}, func(e *session.Engine) { e.DefaultMode = mode })
			runID := testkit.Prompt(t, r.rt, r.id, "work")
			r.c.WaitKind(t, event.ToolStarted, waitLong)
			r.cancel(t)
			testkit.Equal(t, testkit.WaitRunEnded(t, r.c, runID, waitLong).StopReason, event.StopCancelled)
			next := testkit.Prompt(t, r.rt, r.id, "next")
			testkit.WaitRunEnded(t, r.c, next, waitLong)
			evs := r.c.Events()
			// Each call that started completed, and each completed call started.
			started := map[string]bool{}
			for _, p := range payloads[event.ToolStartedPayload](t, evs, event.ToolStarted) {
				started[p.ToolCallID] = true
			}
			for _, p := range payloads[event.ToolCompletedPayload](t, evs, event.ToolCompleted) {
				if !started[p.ToolCallID] {
					t.Fatalf("%s completed without starting", p.ToolCallID)
				}
				if p.Status != "cancelled" {
					t.Fatalf("%s: status %s after a cancel", p.ToolCallID, p.Status)
				}
				delete(started, p.ToolCallID)
			}
			if len(started) > 0 {
				t.Fatalf("calls started and never completed: %v", started)
			}
			reqs := r.llm.Requests()
			testkit.Equal(t, len(reqs), 2)
			answered(t, reqs[1].Messages)
		})
	}
}

// An amend must name its target.
func TestAmendWithoutTargetWhenIdle(t *testing.T) {
	r := newRig(t, event.ToolStyleNative, llmserver.Script{}, nil)
	res := r.amend(t, sessions.AmendRequest{Content: text("what?")})
	if res.OK {
		t.Fatalf("amend of nothing: %+v", res)
	}
	time.Sleep(50 * time.Millisecond)
	evs := r.c.Events()
	testkit.Equal(t, testkit.CountKind(evs, event.PromptQueued)+testkit.CountKind(evs, event.PromptAmended)+testkit.CountKind(evs, event.RunStarted), 0)
}

// touchPanics panics while approval asks which paths it would write: tool
// code running for a call, so it fails that call like a panic in Run.
type touchPanics struct{ panicTool }

func (touchPanics) Name() string                { return "scribble" }
func (touchPanics) Category() tools.Category    { return tools.CategoryEdit }
func (touchPanics) Touches(tools.Call) []string { panic("touches exploded") }

func TestToolPanicBeforeRunFailsOnlyThatCall(t *testing.T) {
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.ToolCall("s1", "scribble", `{}`), llmserver.ToolCall("l1", "ls", `{}`)),
		llmserver.Steps(llmserver.Text("noted")),
	}}, func(e *session.Engine) {
		e.DefaultMode = event.ApprovalAutoEdit
		e.Tools = func(session.State) []tools.Tool { return append(tools.Builtins(), touchPanics{}) }
	})
	runID := testkit.Prompt(t, r.rt, r.id, "scribble")
	testkit.Equal(t, testkit.WaitRunEnded(t, r.c, runID, waitLong).StopReason, event.StopEndTurn)
	evs := r.c.Events()
	testkit.DeepEqual(t, toolStatuses(evs), []string{"scribble:error", "ls:success"})
	testkit.Equal(t, testkit.CountKind(evs, event.RunInterrupted), 0)
	testkit.Equal(t, len(r.llm.Requests()), 2)
}

// A cancel during the wait before a retry closes the retry too: a client
// showing "retrying" must see it end.
func TestCancelDuringRetryWaitEndsTheRetry(t *testing.T) {
	busy := llmserver.Steps(llmserver.HTTPError(llmserver.APIError{Status: 503, Message: "Loading model"}))
	r := newRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{busy}}, func(e *session.Engine) {
		e.Retry.BaseDelay = time.Minute
	})
	runID := testkit.Prompt(t, r.rt, r.id, "hi")
	r.c.WaitKind(t, event.RetryStarted, waitLong)
	r.cancel(t)
	testkit.Equal(t, testkit.WaitRunEnded(t, r.c, runID, waitLong).StopReason, event.StopCancelled)
	ends := payloads[event.RetryPayload](t, r.c.Events(), event.RetryEnded)
	if len(ends) != 1 || ends[0].Success {
		t.Fatalf("retry.ended %+v, want one failure", ends)
	}
}

func TestQueuePositions(t *testing.T) {
	r, g := newGatedRig(t, event.ToolStyleNative, llmserver.Script{Default: ptr(llmserver.Steps(llmserver.Text("ok")))}, nil)
	held := g.hold(0)
	first := testkit.Prompt(t, r.rt, r.id, "first")
	testkit.ChanRead(t, held.entered, waitLong)
	q := func(text, pos, after string) sessions.PromptResult {
		res, err := r.rt.Sessions.Prompt(context.Background(), r.id, sessions.PromptRequest{Content: []event.Block{{Type: "text", Text: text}}, Position: pos, After: after})
		testkit.NoError(t, err)
		return res
	}
	b := q("b", "", "")
	c := q("c", "head", "")
	d := q("d", "after", b.MessageID)
	testkit.Equal(t, b.Position, 1)
	testkit.Equal(t, c.Position, 1)
	testkit.Equal(t, d.Position, 3)
	res, err := r.rt.Sessions.QueueCancel(context.Background(), r.id, "nope")
	testkit.NoError(t, err)
	testkit.Equal(t, res.Reason, "not_found")
	res, err = r.rt.Sessions.QueueUpdate(context.Background(), r.id, first, text("x"))
	testkit.NoError(t, err)
	testkit.Equal(t, res.Reason, "already_running")
	close(held.release)
	testkit.WaitRunEnded(t, r.c, d.MessageID, waitLong)
	testkit.DeepEqual(t, runStarts(t, r.c.Events()), []string{first, c.MessageID, b.MessageID, d.MessageID})
}

// Text-style calls skipped for a steer are answered in the one results
// message, which comes before the steer.
func TestSteerSkipsTextStyleCalls(t *testing.T) {
	r := newRig(t, event.ToolStyleText, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(
			llmserver.TextToolCall(llmserver.FormatQwen, llmserver.InnerJSON, "bash", map[string]any{"command": "while [ ! -e go ]; do sleep 0.02; done; echo released"}),
			llmserver.TextToolCall(llmserver.FormatQwen, llmserver.InnerJSON, "ls", map[string]any{}),
		),
		llmserver.Steps(llmserver.Text("ok")),
	}}, nil)
	runID := testkit.Prompt(t, r.rt, r.id, "work")
	r.c.WaitKind(t, event.ToolStarted, waitLong)
	r.queueMsg(t, event.DeliverySteer, "change of plan")
	touch(t, r.cwd, "go")
	testkit.WaitRunEnded(t, r.c, runID, waitLong)
	testkit.DeepEqual(t, toolStatuses(r.c.Events()), []string{"bash:success", "ls:skipped"})
	msgs := r.llm.Requests()[1].Messages
	res := msgs[len(msgs)-2]
	if !strings.HasPrefix(res.Content, "Tool results:") || !strings.Contains(res.Content, "released") || !strings.Contains(res.Content, run.SkippedOutput) {
		t.Fatalf("results message %q", res.Content)
	}
	testkit.Equal(t, msgs[len(msgs)-1].Content, "change of plan")
}

// An emit carrying only a reply (no events) must be answered once what
// came before it is committed, even when that is already the case.
func TestEmptyEmitIsAnsweredWhenAllIsCommitted(t *testing.T) {
	r := newRig(t, event.ToolStyleNative, llmserver.Script{}, nil)
	pid := actor.NewPID(r.rt.System.Address(), r.rt.Registry().Id+"/"+r.id)
	got := make(chan string, 1)
	probe := r.rt.System.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		if s, ok := ctx.Message().(string); ok {
			got <- s
		}
	}))
	t.Cleanup(func() { r.rt.System.Root.Stop(probe) })
	r.rt.System.Root.Send(pid, &queue.Emit{Reply: "ack", ReplyTo: probe})
	testkit.Equal(t, testkit.ChanRead(t, got, 5*time.Second), "ack")
}
