package process_test

import (
	"bufio"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/actors/process"
	"github.com/troupehq/troupe/testkit"
)

func TestLinesInOrderThenExit(t *testing.T) {
	sys := newSystem(t)
	o := newOwner(t, sys)
	o.run(sys, sh(`for i in 1 2 3; do echo "out $i"; echo "err $i" >&2; done
printf 'crlf\r\n\n'; printf 'no newline'`))
	s := o.started()
	if s.PID <= 0 || s.PGID != s.PID || s.Stdin != nil || s.Stdout != nil {
		t.Errorf("Started %+v, want a pid leading its group and no pipes", s)
	}
	lines, ex := o.until()
	equal(t, "stdout", texts(lines, process.Stdout), []string{"out 1", "out 2", "out 3", "crlf", "", "no newline"})
	equal(t, "stderr", texts(lines, process.Stderr), []string{"err 1", "err 2", "err 3"})
	if ex.Code != 0 || ex.Signal != 0 || ex.Err != nil || ex.PID != s.PID {
		t.Errorf("Exited %+v, want a clean exit of %d", ex, s.PID)
	}
	select {
	case <-s.Done:
	case <-time.After(5 * time.Second):
		t.Fatal("Done not closed after Exited")
	}
	// Every message names the process actor as its sender.
	o2 := newOwner(t, sys)
	pid2 := o2.run(sys, sh(`echo hi`))
	for _, want := range []string{"Started", "Line", "Exited"} {
		r := o2.next()
		if got := fmt.Sprintf("%T", r.msg); !strings.HasSuffix(got, "."+want) || !r.from.Equal(pid2) {
			t.Errorf("got %s from %v, want %s from %v", got, r.from, want, pid2)
		}
	}
}

func TestExitCodeAndSignal(t *testing.T) {
	sys := newSystem(t)
	o := newOwner(t, sys)
	o.run(sys, sh(`exit 3`))
	o.started()
	if _, ex := o.until(); ex.Code != 3 || ex.Signal != 0 || ex.Err != nil {
		t.Errorf("Exited %+v, want code 3", ex)
	}
	o.run(sys, sh(`kill -TERM $$`))
	o.started()
	if _, ex := o.until(); ex.Code != -1 || ex.Signal != syscall.SIGTERM || ex.Err != nil {
		t.Errorf("Exited %+v, want SIGTERM", ex)
	}
}

func TestStartFailure(t *testing.T) {
	sys := newSystem(t)
	o := newOwner(t, sys)
	missing := t.TempDir() + "/no-such-program"
	o.run(sys, process.Spec{Path: missing})
	r := o.next()
	ex, ok := r.msg.(*process.Exited)
	if !ok {
		t.Fatalf("got %T %+v, want Exited without Started", r.msg, r.msg)
	}
	if ex.Err == nil || !strings.Contains(ex.Err.Error(), missing+": no such file") || ex.Code != -1 || ex.PID != 0 {
		t.Errorf("Exited %+v, want a start error naming %s", ex, missing)
	}
}

func TestLongLinesAreSplit(t *testing.T) {
	sys := newSystem(t)
	o := newOwner(t, sys)
	o.run(sys, sh(`head -c 70000 /dev/zero | tr '\0' a; echo; echo short`))
	o.started()
	lines, ex := o.until()
	got := texts(lines, process.Stdout)
	if ex.Code != 0 || len(got) != 3 || len(got[0]) != process.MaxLine || len(got[1]) != 70000-process.MaxLine || got[2] != "short" {
		t.Errorf("lines of lengths %v, exit %+v", lens(got), ex)
	}
}

func lens(ss []string) []int {
	var out []int
	for _, s := range ss {
		out = append(out, len(s))
	}
	return out
}

// With OutputStream and Stdin the owner holds the program's pipes: a cat
// echoes what it is sent and exits at EOF. Stderr goes to a writer, all of
// it by the time Done closes.
func TestStreamAndStdin(t *testing.T) {
	sys := newSystem(t)
	o := newOwner(t, sys)
	var stderr testkit.Buffer
	spec := sh(`echo starting >&2; cat; echo bye >&2`)
	spec.Stdin, spec.Output, spec.Stderr = true, process.OutputStream, &stderr
	o.run(sys, spec)
	s := o.started()
	if s.Stdin == nil || s.Stdout == nil {
		t.Fatalf("Started %+v, want both pipes", s)
	}
	out := bufio.NewReader(s.Stdout)
	for _, msg := range []string{"hello\n", "world\n"} {
		if _, err := s.Stdin.Write([]byte(msg)); err != nil {
			t.Fatal(err)
		}
		if line, err := out.ReadString('\n'); err != nil || line != msg {
			t.Fatalf("read %q, %v; want %q", line, err, msg)
		}
	}
	if err := s.Stdin.Close(); err != nil {
		t.Fatal(err)
	}
	if rest, err := out.ReadString('\n'); rest != "" || err == nil {
		t.Errorf("after EOF read %q, %v", rest, err)
	}
	if lines, ex := o.until(); len(lines) != 0 || ex.Code != 0 {
		t.Errorf("lines %v, Exited %+v", lines, ex)
	}
	<-s.Done
	if got := stderr.String(); got != "starting\nbye\n" {
		t.Errorf("stderr %q", got)
	}
}

func TestUnhandledMessageKeepsItRunning(t *testing.T) {
	sys := newSystem(t)
	o := newOwner(t, sys)
	spec := sh(`read -r line; echo "got $line"`)
	spec.Stdin = true
	pid := o.run(sys, spec)
	s := o.started()
	sys.Root.Send(pid, "nonsense")
	if _, err := s.Stdin.Write([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	lines, ex := o.until()
	equal(t, "stdout", texts(lines, process.Stdout), []string{"got x"})
	if ex.Code != 0 {
		t.Errorf("Exited %+v", ex)
	}
}
