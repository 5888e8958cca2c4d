//go:build linux

package process_test

import (
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/actors/process"
	"github.com/troupehq/troupe/runtime/proc"
	"github.com/troupehq/troupe/testkit"
)

// tree starts a child and a grandchild (through a nested shell) that would
// sleep forever, printing their pids, then waits.
const tree = `sleep 1000 & echo "pid $!"
sh -c 'sleep 1000 & echo "pid $!"; wait' &
echo "pid $!"
wait`

func requireDead(t *testing.T, pids ...int) {
	t.Helper()
	for _, pid := range pids {
		testkit.Eventually(t, 5*time.Second, "process gone", func() bool { return !proc.Alive(pid) })
	}
}

func killOnCleanup(t *testing.T, pgid int) {
	t.Cleanup(func() { proc.KillGroup(pgid) })
}

func TestStopKillsTheWholeGroup(t *testing.T) {
	sys := newSystem(t)
	o := newOwner(t, sys)
	pid := o.run(sys, sh(tree))
	s := o.started()
	killOnCleanup(t, s.PGID)
	pids := o.pids(3)
	if err := sys.Root.StopFuture(pid).Wait(); err != nil {
		t.Fatal(err)
	}
	requireDead(t, append(pids, s.PID)...)
	testkit.Eventually(t, 5*time.Second, "group gone", func() bool { return !proc.GroupAlive(s.PGID) })
	if _, ex := o.until(); ex.Signal != syscall.SIGKILL {
		t.Errorf("Exited %+v, want SIGKILL", ex)
	}
}

// When the program exits, what it left in its group dies with it, and
// Exited does not wait for the pipe those leftovers hold.
func TestExitKillsWhatTheProgramLeft(t *testing.T) {
	sys := newSystem(t)
	o := newOwner(t, sys)
	spec := sh(`sleep 1000 & echo "pid $!"; exit 0`)
	spec.PipeGrace = time.Minute // were the pipe held, Exited would not come
	o.run(sys, spec)
	s := o.started()
	killOnCleanup(t, s.PGID)
	pids := o.pids(1)
	if _, ex := o.until(); ex.Code != 0 {
		t.Errorf("Exited %+v", ex)
	}
	requireDead(t, pids...)
}

// Something that left the group and holds the output pipe delays Exited by
// PipeGrace at most.
func TestPipeGraceBoundsAnEscapee(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	sys := newSystem(t)
	o := newOwner(t, sys)
	// The escapee says its pid on stdout, then in a file the program waits
	// for, so the line is in the pipe before the program exits.
	spec := sh(`setsid sh -c 'echo "pid $$"; echo $$ > "$0"; exec sleep 1000' "$0" &
while [ ! -s "$0" ]; do sleep 0.01; done`, t.TempDir()+"/escapee")
	spec.PipeGrace = 100 * time.Millisecond
	o.run(sys, spec)
	o.started()
	escapee := o.pids(1)[0]
	t.Cleanup(func() { _ = syscall.Kill(escapee, syscall.SIGKILL) })
	if _, ex := o.until(); ex.Code != 0 {
		t.Errorf("Exited %+v", ex)
	}
	if !proc.Alive(escapee) {
		t.Error("the escapee was killed: it left the group")
	}
}

func TestTerminateEndsAnObedientProgramWithSIGTERM(t *testing.T) {
	sys := newSystem(t)
	o := newOwner(t, sys)
	pid := o.run(sys, sh(tree))
	s := o.started()
	killOnCleanup(t, s.PGID)
	pids := o.pids(3)
	sys.Root.Send(pid, &process.Terminate{Grace: time.Minute})
	if _, ex := o.until(); ex.Signal != syscall.SIGTERM {
		t.Errorf("Exited %+v, want SIGTERM", ex)
	}
	requireDead(t, pids...)
}

func TestTerminateKillsAProgramIgnoringSIGTERM(t *testing.T) {
	sys := newSystem(t)
	o := newOwner(t, sys)
	// sleep inherits the ignored SIGTERM, so only SIGKILL ends it.
	pid := o.run(sys, sh(`trap '' TERM; sleep 1000 & echo "pid $!"; wait`))
	s := o.started()
	killOnCleanup(t, s.PGID)
	pids := o.pids(1)
	sys.Root.Send(pid, &process.Terminate{Grace: time.Minute})
	sys.Root.Send(pid, &process.Terminate{Grace: 200 * time.Millisecond}) // shortens the first
	if _, ex := o.until(); ex.Signal != syscall.SIGKILL {
		t.Errorf("Exited %+v, want SIGKILL after the grace", ex)
	}
	requireDead(t, pids...)
}

// With StopGrace, stopping asks first: an obedient program ends by SIGTERM,
// and the SIGKILL stays armed after the actor is gone.
func TestStopGrace(t *testing.T) {
	sys := newSystem(t)
	for _, tc := range []struct {
		script string
		want   syscall.Signal
	}{
		{tree, syscall.SIGTERM},
		{`trap '' TERM; sleep 1000 & echo "pid $!"; wait`, syscall.SIGKILL},
	} {
		o := newOwner(t, sys)
		spec := sh(tc.script)
		spec.StopGrace = 200 * time.Millisecond
		pid := o.run(sys, spec)
		s := o.started()
		killOnCleanup(t, s.PGID)
		o.pids(1)
		if err := sys.Root.StopFuture(pid).Wait(); err != nil {
			t.Fatal(err)
		}
		var ex *process.Exited
		for ex == nil {
			if m, ok := o.next().msg.(*process.Exited); ok {
				ex = m
			}
		}
		if ex.Signal != tc.want {
			t.Errorf("%q: Exited %+v, want %s", tc.script, ex, tc.want)
		}
		testkit.Eventually(t, 5*time.Second, "group gone", func() bool { return !proc.GroupAlive(s.PGID) })
	}
}

// Every goroutine the actor starts ends once the program is gone and the
// actor stopped.
func TestNoGoroutineLeak(t *testing.T) {
	sys := newSystem(t)
	o := newOwner(t, sys)
	time.Sleep(50 * time.Millisecond) // let the system's own goroutines settle
	before := runtime.NumGoroutine()
	for range 5 {
		pid := o.run(sys, sh(tree))
		s := o.started()
		o.pids(3)
		_ = sys.Root.StopFuture(pid).Wait()
		o.until()
		<-s.Done

		spec := sh(`echo x >&2; cat`)
		spec.Stdin, spec.Output = true, process.OutputStream
		pid = o.run(sys, spec)
		s = o.started()
		_ = sys.Root.StopFuture(pid).Wait() // closes the pipes the owner never read
		o.until()
		<-s.Done
	}
	var after int
	deadline := time.Now().Add(5 * time.Second)
	for {
		after = runtime.NumGoroutine()
		if after <= before || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if after > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines before, %d after:\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}
