package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// eightSteps scripts the reproduction of the two-owners defect: eight bash
// steps that each leave a start and an end mark, then an answer.
func eightSteps(side string) []llmserver.Reply {
	var replies []llmserver.Reply
	for k := 1; k <= 8; k++ {
		replies = append(replies, bashStep(k, side, fmt.Sprintf("sleep 0.3; echo done-%d >> %s", k, side)))
	}
	return append(replies, llmserver.Steps(llmserver.Text("all eight done")))
}

// marks counts each line of the side-effect file.
func marks(t *testing.T, side string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(side)
	testkit.NoError(t, err)
	out := map[string]int{}
	for _, l := range strings.Fields(string(b)) {
		out[l]++
	}
	return out
}

func requireEachStepOnce(t *testing.T, side string, steps int) {
	t.Helper()
	m := marks(t, side)
	for k := 1; k <= steps; k++ {
		for _, mark := range []string{fmt.Sprintf("step-%d", k), fmt.Sprintf("done-%d", k)} {
			if m[mark] != 1 {
				keys := make([]string, 0, len(m))
				for k, n := range m {
					keys = append(keys, fmt.Sprintf("%s×%d", k, n))
				}
				slices.Sort(keys)
				t.Fatalf("%s ran %d times; marks: %v", mark, m[mark], keys)
			}
		}
	}
}

func toolStarted(id string) func(event.Event) bool {
	return func(e event.Event) bool {
		var s event.ToolStartedPayload
		return e.Kind == event.ToolStarted && e.Decode(&s) == nil && s.ToolCallID == id
	}
}

// A second `troupe run` on a session another one is running fails at once
// with who holds it; the first finishes with every step run exactly once.
func TestSecondRunOnALiveSessionFailsFast(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	home, work := t.TempDir(), t.TempDir()
	side := filepath.Join(work, "steps.txt")
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: eightSteps(side)})
	env := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	common := []string{"--home", home, "--provider", "openai", "--model", "tiny", "--yolo", "--cwd", work}

	first := testkit.Start(t, bin, env, append([]string{"run", "--json", "--session", "shared"}, append(common, "do the 8 steps")...)...)
	decodeEvents(t, first, toolStarted("call-3"))

	second := testkit.Start(t, bin, env, append([]string{"run", "--resume", "latest"}, append(common, "and also say hi")...)...)
	if code := second.Wait(t, 20*time.Second); code == 0 {
		t.Fatalf("second run exited 0 on a session another process runs")
	}
	want := fmt.Sprintf("session shared is running in troupe pid %d (troupe run)", first.Cmd.Process.Pid)
	if !strings.Contains(second.Stderr(), want) {
		t.Fatalf("second run's stderr lacks %q:\n%s", want, second.Stderr())
	}
	if _, ok := second.ReadLine(time.Second); ok {
		t.Fatal("second run printed output")
	}

	decodeEvents(t, first, func(e event.Event) bool { return e.Kind == event.RunEnded })
	testkit.Equal(t, first.Wait(t, 60*time.Second), 0)
	requireEachStepOnce(t, side, 8)
	stored := readStored(t, bin, home, "shared")
	testkit.Equal(t, testkit.CountKind(stored, event.RunInterrupted), 0)
	testkit.Equal(t, testkit.CountKind(stored, event.RunStarted), 1)
	testkit.Equal(t, testkit.CountKind(stored, event.ToolCompleted), 8)
	for _, p := range []*testkit.Proc{first, second} {
		if strings.Contains(p.Stderr(), "UNIQUE") {
			t.Fatalf("a UNIQUE constraint failed:\n%s", p.Stderr())
		}
	}
}

// A second `troupe append` on a session another one appends to fails before
// reading a line; the first goes on and its log has no gap or duplicate.
func TestSecondAppendOnALiveSessionFailsFast(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	home := t.TempDir()
	first := testkit.Start(t, bin, nil, "append", "shared", "--home", home)
	fmt.Fprintln(first.Stdin, deltaLine(1))
	if _, ok := first.ReadLine(30 * time.Second); !ok {
		t.Fatalf("no ack: %s", first.Stderr())
	}

	second := testkit.Start(t, bin, nil, "append", "shared", "--home", home)
	for n := 1; n <= 100; n++ {
		fmt.Fprintln(second.Stdin, deltaLine(1000+n))
	}
	second.Stdin.Close()
	testkit.Equal(t, second.Wait(t, 20*time.Second), 1)
	want := fmt.Sprintf("session shared is running in troupe pid %d (troupe append)", first.Cmd.Process.Pid)
	if !strings.Contains(second.Stderr(), want) {
		t.Fatalf("second append's stderr lacks %q:\n%s", want, second.Stderr())
	}
	if line, ok := second.ReadLine(time.Second); ok {
		t.Fatalf("second append acknowledged %s", line)
	}

	for n := 2; n <= 50; n++ {
		fmt.Fprintln(first.Stdin, deltaLine(n))
	}
	first.Stdin.Close()
	testkit.Equal(t, first.Wait(t, 30*time.Second), 0)
	evs := readStored(t, bin, home, "shared")
	testkit.Equal(t, len(evs), 51) // session.created and 50 lines
	for i, e := range evs {
		testkit.Equal(t, e.Seq, int64(i+1))
	}

	// Once the first has exited, the session is free again.
	third := testkit.Start(t, bin, nil, "append", "shared", "--home", home)
	fmt.Fprintln(third.Stdin, deltaLine(51))
	third.Stdin.Close()
	line, ok := third.ReadLine(30 * time.Second)
	if !ok {
		t.Fatalf("no ack after the owner exited: %s", third.Stderr())
	}
	testkit.Equal(t, line, `{"line":1,"seq":52}`)
	testkit.Equal(t, third.Wait(t, 30*time.Second), 0)
}

// While the owner lives (here: frozen with SIGSTOP), another process may
// not touch the session, not even to recover its run. Once the owner is
// killed its lease passes at once (its pid is dead on this host), and the
// new owner recovers the run: the cut-off call is reported, not run again.
func TestKilledOwnerIsTakenOverAndOnlyThenRecovered(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	home, work := t.TempDir(), t.TempDir()
	side := filepath.Join(work, "steps.txt")
	replies := []llmserver.Reply{
		bashStep(1, side, "echo done-1 >> "+side),
		bashStep(2, side, "sleep 30; echo done-2 >> "+side),
		bashStep(3, side, "echo done-3 >> "+side),
		llmserver.Steps(llmserver.Text("done")),
	}
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: replies})
	env := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	args := []string{"run", "--json", "--session", "owned", "--home", home, "--provider", "openai", "--model", "tiny", "--yolo", "--cwd", work}

	owner := testkit.Start(t, bin, env, append(args, "three steps")...)
	decodeEvents(t, owner, toolStarted("call-2"))
	testkit.Eventually(t, 10*time.Second, "step 2 is running", func() bool { return marks(t, side)["step-2"] == 1 })
	owner.Signal(syscall.SIGSTOP)
	before := len(readStored(t, bin, home, "owned"))

	early := testkit.Start(t, bin, env, args...)
	testkit.Equal(t, early.Wait(t, 20*time.Second), 1)
	if want := fmt.Sprintf("is running in troupe pid %d", owner.Cmd.Process.Pid); !strings.Contains(early.Stderr(), want) {
		t.Fatalf("stderr lacks %q:\n%s", want, early.Stderr())
	}
	testkit.Equal(t, len(readStored(t, bin, home, "owned")), before)

	owner.Kill()
	owner.Wait(t, 10*time.Second)
	next := testkit.Start(t, bin, env, args...)
	evs := decodeEvents(t, next, func(e event.Event) bool { return e.Kind == event.RunEnded })
	testkit.Equal(t, next.Wait(t, 30*time.Second), 0)
	testkit.Equal(t, testkit.CountKind(evs, event.RunInterrupted), 1)
	m := marks(t, side)
	testkit.Equal(t, m["step-1"], 1)
	testkit.Equal(t, m["step-2"], 1) // cut off, reported, not run again
	testkit.Equal(t, m["done-2"], 0)
	testkit.Equal(t, m["step-3"], 1)
	testkit.Equal(t, m["done-3"], 1)
}
