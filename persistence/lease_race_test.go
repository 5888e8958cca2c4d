package persistence

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
)

// racerEnv makes the test binary a lease racer (TestMain): a process of
// its own, as two troupe processes (or cluster members) sharing a store
// are, that takes commands on stdin and answers each with one line.
const racerEnv = "TROUPE_TEST_LEASE_RACER"

// racerTTL is the racers' lease TTL: short, for the frozen one to lapse.
const racerTTL = 500 * time.Millisecond

// racer runs the commands: "claim" (one try at session s's lease:
// "granted EPOCH" or "refused PID"), "append N" (N events after the log's
// last, under the epoch of the last claim granted: "appended LAST",
// "fenced CURRENT OWNER" or "refused ERROR"), "exit" (at once, leaving
// its lease behind as a crash would).
func racer(target string) int {
	s, err := OpenTarget(target, Options{Owner: ThisProcess("racer"), LeaseTTL: racerTTL})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx := context.Background()
	var epoch int64
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		cmd, arg, _ := strings.Cut(in.Text(), " ")
		switch cmd {
		case "claim":
			out, err := s.Commit(ctx, Batch{Claims: []string{"s"}, Metas: []SessionMeta{{ID: "s"}}})
			switch h, held := out.Refused["s"]; {
			case err != nil:
				fmt.Println("error", err)
			case held:
				fmt.Println("refused", h.PID)
			default:
				epoch = out.Epochs["s"]
				fmt.Println("granted", epoch)
			}
		case "append":
			n, _ := strconv.Atoi(arg)
			last, err := s.LastSeq(ctx, "s")
			if err != nil {
				fmt.Println("error", err)
				continue
			}
			evs := make([]event.Event, n)
			for i := range evs {
				evs[i] = event.Event{SessionID: "s", Seq: last + 1 + int64(i), RecordedAt: time.Now(), Kind: event.MessageDelta,
					Payload: json.RawMessage(fmt.Sprintf(`{"pid":%d}`, os.Getpid()))}
			}
			out, err := s.Commit(ctx, Batch{Events: evs, Epochs: map[string]int64{"s": epoch}})
			var fenced *FencedError
			switch left := out.LeftOut("s"); {
			case err != nil:
				fmt.Println("error", err)
			case errors.As(left, &fenced):
				fmt.Println("fenced", fenced.Current, fenced.Owner)
			case left != nil:
				fmt.Println("refused", left)
			default:
				fmt.Println("appended", last+int64(n))
			}
		case "exit":
			os.Exit(0)
		}
	}
	return 0
}

// racerProc is a racer this test drives.
type racerProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Scanner
}

func startRacer(t *testing.T, target string) *racerProc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), racerEnv+"="+target)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGCONT)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return &racerProc{cmd: cmd, stdin: stdin, out: bufio.NewScanner(stdout)}
}

func (r *racerProc) pid() int { return r.cmd.Process.Pid }

func (r *racerProc) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(r.stdin, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// answer reads the racer's answer to its last command.
func (r *racerProc) answer(t *testing.T) (string, string) {
	t.Helper()
	if !r.out.Scan() {
		t.Fatalf("racer %d ended: %v", r.pid(), r.out.Err())
	}
	word, rest, _ := strings.Cut(r.out.Text(), " ")
	if word == "error" {
		t.Fatalf("racer %d: %s", r.pid(), rest)
	}
	return word, rest
}

func (r *racerProc) do(t *testing.T, line string) (string, string) {
	t.Helper()
	r.send(t, line)
	return r.answer(t)
}

// Two processes race for one session's lease: exactly one gets it and
// appends; the other is refused, naming the winner, while the winner
// lives. The winner is frozen (SIGSTOP) past its lease, as a partitioned
// member would be: the other takes the lease over at the next epoch and
// appends; the winner, thawed, is fenced (its append refused, nothing of
// it written) and refused the lease; when the new holder dies without
// releasing, the lease passes back. The log is whole throughout.
func TestContractTwoProcessesRaceForALease(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		target := b.target(t)
		// The schema first, so that the racers' opens only read it.
		openTarget(t, target, Options{}).Close()
		x, y := startRacer(t, target), startRacer(t, target)
		x.send(t, "claim")
		y.send(t, "claim")
		xw, xa := x.answer(t)
		yw, ya := y.answer(t)
		win, lose, winner, refusal := x, y, xa, ya
		switch {
		case xw == "granted" && yw == "refused":
		case yw == "granted" && xw == "refused":
			win, lose, winner, refusal = y, x, ya, xa
		default:
			t.Fatalf("the race: %s %s, %s %s; want one granted, one refused", xw, xa, yw, ya)
		}
		testEqual(t, refusal, strconv.Itoa(win.pid()))
		epoch, _ := strconv.ParseInt(winner, 10, 64)
		if w, a := win.do(t, "append 3"); w != "appended" || a != "3" {
			t.Fatalf("winner's append: %s %s", w, a)
		}

		testEqual(t, win.cmd.Process.Signal(syscall.SIGSTOP), nil)
		var took string
		deadline := time.Now().Add(60 * racerTTL)
		for {
			w, a := lose.do(t, "claim")
			if w == "granted" {
				took = a
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the frozen winner's lease never lapsed: %s %s", w, a)
			}
			time.Sleep(racerTTL / 5)
		}
		testEqual(t, took, strconv.FormatInt(epoch+1, 10))
		if w, a := lose.do(t, "append 2"); w != "appended" || a != "5" {
			t.Fatalf("new holder's append: %s %s", w, a)
		}

		testEqual(t, win.cmd.Process.Signal(syscall.SIGCONT), nil)
		if w, a := win.do(t, "append 1"); w != "fenced" || !strings.HasPrefix(a, took+" ") {
			t.Fatalf("the thawed winner's append: %s %s, want fenced at epoch %s", w, a, took)
		}
		if w, a := win.do(t, "claim"); w != "refused" || a != strconv.Itoa(lose.pid()) {
			t.Fatalf("the thawed winner's claim: %s %s", w, a)
		}
		lose.send(t, "exit")
		_ = lose.cmd.Wait()
		if w, a := win.do(t, "claim"); w != "granted" || a != strconv.FormatInt(epoch+2, 10) {
			t.Fatalf("claim after the holder died: %s %s", w, a)
		}
		if w, a := win.do(t, "append 1"); w != "appended" || a != "6" {
			t.Fatalf("append after taking it back: %s %s", w, a)
		}

		s := openTarget(t, target, Options{})
		seqs, payloads := seqsOf(t, s, "s")
		wantLog(t, seqs, 6)
		by := func(r *racerProc) string { return fmt.Sprintf(`{"pid":%d}`, r.pid()) }
		want := []string{by(win), by(win), by(win), by(lose), by(lose), by(win)}
		for i := range want {
			if compactJSON(payloads[i]) != want[i] {
				t.Fatalf("event %d by %s, want %s", i+1, payloads[i], want[i])
			}
		}
	})
}

func compactJSON(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
