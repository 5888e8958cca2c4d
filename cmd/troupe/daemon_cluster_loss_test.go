package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// clusterSessions is how many sessions the member-loss test streams:
// $TROUPE_CLUSTER_SESSIONS (make cluster-test sets 300), else 24.
func clusterSessions(t *testing.T) int {
	if v := os.Getenv("TROUPE_CLUSTER_SESSIONS"); v != "" {
		n, err := strconv.Atoi(v)
		testkit.NoError(t, err)
		return n
	}
	return 24
}

// lossClient is one session's client and everything it received.
type lossClient struct {
	member int // the member it is connected to
	c      *acpclient.Client
	id     string
	cwd    string
	prompt int // the prompt's request id on the first connection; 0 after a reconnect
	got    []acpclient.Frame
	done   bool
}

// take adds a frame the client received; the run has ended for it when
// its prompt is answered (the prompting connection) or, on a connection
// that reattached, at turn_complete, the text streamed to its end.
func (l *lossClient) take(t testing.TB, f acpclient.Frame) {
	l.got = append(l.got, f)
	ended := (l.prompt != 0 && f.Answers(l.prompt)) || f.IsUpdate("turn_complete")
	if ended && strings.HasSuffix(acpclient.Chunks(t, l.got), "to the end") {
		l.done = true
	}
}

// completedCalls are the tool calls frames show completed, in order.
func completedCalls(t testing.TB, fs []acpclient.Frame) []string {
	var out []string
	for _, f := range fs {
		if f.IsUpdate("tool_call_update") && strings.Contains(f.Raw, `"status":"completed"`) {
			_, rest, _ := strings.Cut(f.Raw, `"toolCallId":"`)
			id, _, _ := strings.Cut(rest, `"`)
			out = append(out, id)
		}
	}
	return out
}

// Three `troupe daemon --cluster` members on one PostgreSQL store, N
// sessions streaming with their clients spread over the members, each
// run having called a tool first. The member hosting the most sessions is
// SIGKILLed mid-stream. Its sessions are taken over by the others from
// the store (their leases' holder is dead) and their runs resumed; the
// clients of the survivors follow them untouched, the killed member's
// clients reconnect to another member and reattach after_message. Every
// client ends with exactly the session's updates, in order, none twice
// (its text is a fresh full replay's); every log has no gap; no tool
// ran twice; and the killed member, restarted, rejoins and hosts sessions.
func TestDaemonClusterLosesAMemberMidStream(t *testing.T) {
	n := clusterSessions(t)
	var replies []llmserver.Reply
	for i := range n {
		// Each session's first requests call a tool, which writes its call
		// id into the session's workspace; then the stream the kill cuts.
		call := fmt.Sprintf("call-%d", i)
		replies = append(replies, llmserver.Steps(llmserver.ToolCall(call, "bash", fmt.Sprintf(`{"command":"echo %s >> ran.log"}`, call))))
	}
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: replies, Default: ptr(llmserver.Steps(
		llmserver.Text("streamed "), llmserver.Delay(3*time.Second), llmserver.Text("to the end")))})
	cl := startPGClusterOn(t, 3, "loss", srv, nil, "--lease-ttl", "3s")
	members, store := cl.members, cl.store

	clients := make([]*lossClient, n)
	for i := range clients {
		m := i % 3
		l := &lossClient{member: m, c: members[m].dialACP(t, "client-"+strconv.Itoa(i)), cwd: t.TempDir()}
		l.c.Wait = 2 * time.Minute
		l.id, _ = l.c.NewSession(l.cwd)
		clients[i] = l
	}
	for _, l := range clients {
		l.prompt = l.c.Prompt(l.id, "go")
	}
	for _, l := range clients {
		l.c.Until(func(f acpclient.Frame) bool {
			l.take(t, f)
			return strings.Contains(acpclient.Chunks(t, l.got), "streamed")
		})
	}

	// Mid-stream: every run is waiting on the model's next token.
	health := clusterHealth(t, members[0])
	victim, most := 0, -1
	for i, d := range members {
		if h := hostOf(t, members[0], clusterHealth(t, d).Self); h > most {
			victim, most = i, h
		}
	}
	t.Logf("members host %+v; SIGKILL member %d (%d sessions)", health.Members, victim, most)
	members[victim].proc.Signal(syscall.SIGKILL)
	killed := time.Now()
	survivor := (victim + 1) % 3

	for i, l := range clients {
		if l.member != victim {
			continue
		}
		// Its connection went with the member: reconnect elsewhere and
		// take up from the last update seen.
		l.member, l.c, l.prompt = survivor, members[survivor].dialACP(t, "again-"+strconv.Itoa(i)), 0
		l.c.Wait = 2 * time.Minute
		replayed, res := l.c.Attach(map[string]any{"sessionId": l.id, "historyPolicy": "after_message", "afterMessageId": lastAnchor(t, l.got)})
		testkit.Equal(t, res.HistoryPolicy, "after_message")
		for _, f := range replayed {
			l.take(t, f)
		}
	}
	for _, l := range clients {
		if !l.done {
			l.c.Until(func(f acpclient.Frame) bool { l.take(t, f); return l.done })
		}
	}
	t.Logf("every session served to its run's end %s after the kill", time.Since(killed).Round(time.Millisecond))

	// Each client has what the store has: the same text as a fresh full
	// replay, its updates in increasing order, the last the same.
	fresh := members[survivor].dialACP(t, "fresh")
	for _, l := range clients {
		full, _ := fresh.Attach(map[string]any{"sessionId": l.id, "historyPolicy": "full"})
		acpclient.RequireIncreasing(t, l.got)
		testkit.Equal(t, acpclient.Chunks(t, l.got), acpclient.Chunks(t, full))
		if got, want := completedCalls(t, l.got), completedCalls(t, full); !slices.Equal(got, want) {
			t.Fatalf("session %s: the client saw tool calls %v complete, the store %v", l.id, got, want)
		}
	}

	// The logs: no gap, no duplicate, up to the session's last seq; one
	// run for the one prompt, started once and ended once at the end of
	// its turn (the crash policy resumes an interrupted run under its own
	// id: a run.interrupted names it, no second run.started); each tool
	// call completed once and ran once.
	s, err := persistence.OpenPostgres(store, persistence.Options{})
	testkit.NoError(t, err)
	defer s.Close()
	ran := map[string]int{}
	resumed := 0
	for _, l := range clients {
		var next int64 = 1
		completed := map[string]int{}
		var started []string
		var ended []event.RunEndedPayload
		var interrupted []event.RunInterruptedPayload
		testkit.NoError(t, s.Load(context.Background(), l.id, 1, func(e event.Event) error {
			if e.Seq != next {
				return fmt.Errorf("session %s: seq %d where %d was due", l.id, e.Seq, next)
			}
			next++
			switch e.Kind {
			case event.ToolCompleted:
				var p event.ToolCompletedPayload
				testkit.NoError(t, e.Decode(&p))
				completed[p.ToolCallID]++
			case event.RunStarted:
				var p event.RunStartedPayload
				testkit.NoError(t, e.Decode(&p))
				started = append(started, p.RunID)
			case event.RunEnded:
				var p event.RunEndedPayload
				testkit.NoError(t, e.Decode(&p))
				ended = append(ended, p)
			case event.RunInterrupted:
				var p event.RunInterruptedPayload
				testkit.NoError(t, e.Decode(&p))
				interrupted = append(interrupted, p)
			}
			return nil
		}))
		meta, err := s.Session(context.Background(), l.id)
		testkit.NoError(t, err)
		testkit.Equal(t, next-1, meta.LastSeq)
		if len(started) != 1 || len(ended) != 1 || ended[0].RunID != started[0] || ended[0].StopReason != event.StopEndTurn {
			t.Fatalf("session %s: runs started %v, ended %+v", l.id, started, ended)
		}
		for _, p := range interrupted {
			if p.RunID != started[0] || p.Policy != event.CrashResume {
				t.Fatalf("session %s: run %s interrupted %+v", l.id, started[0], p)
			}
		}
		resumed += len(interrupted)
		lines, _ := os.ReadFile(filepath.Join(l.cwd, "ran.log"))
		for _, call := range strings.Fields(string(lines)) {
			ran[call]++
			if completed[call] != 1 {
				t.Fatalf("session %s: tool call %s ran, completed %d times in the log", l.id, call, completed[call])
			}
		}
	}
	for call, times := range ran {
		if times != 1 {
			t.Fatalf("tool call %s ran %d times", call, times)
		}
	}
	if resumed == 0 {
		// The kill cut no run: the test did not test a loss mid-stream.
		t.Fatalf("no run was resumed after an interruption; the killed member hosted %d sessions", most)
	}
	t.Logf("%d tool calls, each run once; %d runs resumed", len(ran), resumed)

	// The killed member restarts on its home and takes sessions again.
	members[victim] = cl.start(t, victim)
	cl.waitMembers(t, members, 3)
	back := clusterHealth(t, members[victim]).Self
	c := members[survivor].dialACP(t, "after-rejoin")
	for range 64 {
		id, _ := c.NewSession(t.TempDir())
		if hostOf(t, members[survivor], back) > 0 {
			if f := c.WaitAnswer(c.Prompt(id, "again")); f.Error != nil {
				t.Fatalf("a prompt to a session on the rejoined member: %s", f.Raw)
			}
			return
		}
	}
	t.Fatal("the rejoined member hosted none of 64 new sessions")
}
