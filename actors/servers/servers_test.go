package servers_test

import (
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/troupehq/troupe/actors/servers"
	"github.com/troupehq/troupe/runtime/llamaconfig"
	"github.com/troupehq/troupe/testkit"
)

func newSystem(t testing.TB) *actor.ActorSystem {
	t.Helper()
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.DiscardHandler)
	}))
	t.Cleanup(sys.Shutdown)
	return sys
}

// events collects the supervisor's events.
type events struct {
	mu  sync.Mutex
	all []servers.Event
}

func (e *events) add(ev servers.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all = append(e.all, ev)
}

func (e *events) of(name, status string) []servers.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []servers.Event
	for _, ev := range e.all {
		if ev.Name == name && ev.Status == status {
			out = append(out, ev)
		}
	}
	return out
}

type harness struct {
	t   testing.TB
	sys *actor.ActorSystem
	sup *actor.PID
	ev  *events
}

func newHarness(t testing.TB, opts servers.Options) *harness {
	t.Helper()
	h := &harness{t: t, sys: newSystem(t), ev: &events{}}
	opts.OnEvent = h.ev.add
	h.sup = h.sys.Root.Spawn(servers.Props(opts))
	// Stopping the supervisor ends every server; the test checks none is left.
	t.Cleanup(func() { _ = h.sys.Root.StopFuture(h.sup).Wait() })
	return h
}

// config is a config running the fake llama-server with extra flags.
func config(t testing.TB, extra ...string) llamaconfig.Config {
	t.Helper()
	model := filepath.Join(t.TempDir(), "m.gguf")
	if err := os.WriteFile(model, []byte("GGUF"), 0o644); err != nil {
		t.Fatal(err)
	}
	return llamaconfig.Config{ModelPath: model, Ctx: 1024, Slots: 1, Host: "127.0.0.1",
		ServerPath: testkit.BuildFakeLlamaServer(t), ExtraArgs: extra}
}

func (h *harness) start(name string, cfg llamaconfig.Config) *servers.Started {
	h.t.Helper()
	res, err := h.sys.Root.RequestFuture(h.sup, &servers.Start{Name: name, Config: cfg}, 20*time.Second).Result()
	if err != nil {
		h.t.Fatalf("start %s: %v", name, err)
	}
	return res.(*servers.Started)
}

func (h *harness) stop(name string, grace time.Duration) string {
	h.t.Helper()
	res, err := h.sys.Root.RequestFuture(h.sup, &servers.Stop{Name: name, Grace: grace}, 20*time.Second).Result()
	if err != nil {
		h.t.Fatalf("stop %s: %v", name, err)
	}
	return res.(*servers.Stopped).Status
}

func (h *harness) list() []servers.Info {
	h.t.Helper()
	res, err := h.sys.Root.RequestFuture(h.sup, &servers.List{}, 5*time.Second).Result()
	if err != nil {
		h.t.Fatal(err)
	}
	return res.(*servers.Listed).Servers
}

// alive reports whether pid is a process that has not been reaped.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && len(stat) > 0
}

func TestStartAnswersOnceHealthyAndStopLeavesNoProcess(t *testing.T) {
	h := newHarness(t, servers.Options{})
	begun := time.Now()
	got := h.start("tiny", config(t, "--fake-load", "400ms"))
	if got.Err != nil {
		t.Fatal(got.Err)
	}
	if took := time.Since(begun); took < 400*time.Millisecond {
		t.Fatalf("started after %v, before the load (400ms) was over", took)
	}
	if got.Info.Status != servers.StatusStarted || got.Info.Port == 0 || !alive(got.Info.PID) {
		t.Fatalf("started %+v", got.Info)
	}
	if len(h.ev.of("tiny", servers.StatusLoading)) != 1 {
		t.Fatalf("no loading event: %+v", h.ev.all)
	}
	if again := h.start("tiny", config(t)); again.Err != nil || again.Info.PID != got.Info.PID {
		t.Fatalf("a second start ran another program: %+v", again)
	}
	if l := h.list(); len(l) != 1 || l[0].Status != servers.StatusStarted || l[0].PID != got.Info.PID {
		t.Fatalf("list %+v", l)
	}
	if st := h.stop("tiny", 5*time.Second); st != servers.StatusStopped {
		t.Fatalf("stop: %s", st)
	}
	if alive(got.Info.PID) {
		t.Fatalf("pid %d still in /proc after stop", got.Info.PID)
	}
	if st := h.stop("tiny", 0); st != servers.StatusAlreadyStopped {
		t.Fatalf("second stop: %s", st)
	}
	if st := h.stop("never", 0); st != servers.StatusAlreadyStopped {
		t.Fatalf("stop of an unknown config: %s", st)
	}
}

func TestStopEscalatesAndAcceptsAbort(t *testing.T) {
	h := newHarness(t, servers.Options{})
	stubborn := h.start("stubborn", config(t, "--fake-ignore-term"))
	aborting := h.start("aborting", config(t, "--fake-abort-on-term"))
	if stubborn.Err != nil || aborting.Err != nil {
		t.Fatal(stubborn.Err, aborting.Err)
	}
	if st := h.stop("stubborn", 300*time.Millisecond); st != servers.StatusStopTimeout {
		t.Fatalf("a server ignoring SIGTERM: %s", st)
	}
	if st := h.stop("aborting", 5*time.Second); st != servers.StatusStopped {
		t.Fatalf("SIGABRT after SIGTERM: %s, want a clean stop", st)
	}
	for _, pid := range []int{stubborn.Info.PID, aborting.Info.PID} {
		if alive(pid) {
			t.Fatalf("pid %d left", pid)
		}
	}
}

func TestStartFailsClearly(t *testing.T) {
	h := newHarness(t, servers.Options{})
	cfg := config(t)
	cfg.ServerPath = "/nonexistent/llama-server"
	if got := h.start("missing", cfg); got.Err == nil || got.Info.Status != servers.StatusFailed {
		t.Fatalf("missing program: %+v", got)
	}
	if got := h.start("badmodel", config(t, "--fake-fail-load")); got.Err == nil {
		t.Fatalf("a model that does not load: %+v", got)
	}
}

func TestCrashesRestartWithGrowingDelays(t *testing.T) {
	h := newHarness(t, servers.Options{Backoff: 100 * time.Millisecond})
	other := h.start("other", config(t))
	first := h.start("crashy", config(t, "--fake-load", "50ms"))
	if other.Err != nil || first.Err != nil {
		t.Fatal(other.Err, first.Err)
	}
	pid := first.Info.PID
	for round := 1; round <= 3; round++ {
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		testkit.Eventually(t, 20*time.Second, "restart "+strconv.Itoa(round), func() bool {
			return len(h.ev.of("crashy", servers.StatusStarted)) == round+1
		})
		started := h.ev.of("crashy", servers.StatusStarted)
		pid = started[len(started)-1].PID
		if !alive(pid) {
			t.Fatalf("round %d: the new pid %d is not running", round, pid)
		}
	}
	restarting := h.ev.of("crashy", servers.StatusRestarting)
	if len(restarting) != 3 {
		t.Fatalf("restarting events %+v", restarting)
	}
	for i, want := range []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond} {
		if restarting[i].Delay != want || restarting[i].Exit != "signal 9 (killed)" {
			t.Errorf("restart %d: delay %v exit %q, want %v after SIGKILL", i, restarting[i].Delay, restarting[i].Exit, want)
		}
	}
	l := h.list()
	if len(l) != 2 || l[0].Name != "crashy" || l[0].Restarts != 3 || l[1].PID != other.Info.PID || l[1].Restarts != 0 {
		t.Fatalf("list %+v", l)
	}
}

// A restart that dies while loading has never been healthy: it must not
// count as a stable run, or the backoff would start over at every such
// crash (it did: the zero healthy time read as stable for ever).
func TestRestartsDyingWhileLoadingKeepBackingOff(t *testing.T) {
	h := newHarness(t, servers.Options{Backoff: 100 * time.Millisecond})
	first := h.start("crashy", config(t, "--fake-load", "2s"))
	if first.Err != nil {
		t.Fatal(first.Err)
	}
	pid := first.Info.PID
	for round := 1; round <= 3; round++ {
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		// The restart's program runs and loads (2 s): kill it then.
		testkit.Eventually(t, 20*time.Second, "restart "+strconv.Itoa(round)+" loading", func() bool {
			return len(h.ev.of("crashy", servers.StatusLoading)) == round+1
		})
		loading := h.ev.of("crashy", servers.StatusLoading)
		pid = loading[len(loading)-1].PID
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 20*time.Second, "the third restart's crash noticed", func() bool {
		return len(h.ev.of("crashy", servers.StatusRestarting)) == 4
	})
	var delays []time.Duration
	for _, ev := range h.ev.of("crashy", servers.StatusRestarting) {
		delays = append(delays, ev.Delay)
	}
	testkit.DeepEqual(t, delays, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond})
}

func TestShutdownEndsEveryServer(t *testing.T) {
	h := newHarness(t, servers.Options{StopGrace: 2 * time.Second})
	a, b := h.start("a", config(t)), h.start("b", config(t, "--fake-ignore-term"))
	if a.Err != nil || b.Err != nil {
		t.Fatal(a.Err, b.Err)
	}
	if err := h.sys.Root.StopFuture(h.sup).Wait(); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 10*time.Second, "no server left", func() bool {
		return !alive(a.Info.PID) && !alive(b.Info.PID)
	})
}

// A stop while the server loads ends the wait of its Start with an error.
func TestStopWhileLoading(t *testing.T) {
	h := newHarness(t, servers.Options{})
	res := h.sys.Root.RequestFuture(h.sup, &servers.Start{Name: "slow", Config: config(t, "--fake-load", "1m")}, 20*time.Second)
	testkit.Eventually(t, 10*time.Second, "loading", func() bool { return len(h.ev.of("slow", servers.StatusLoading)) == 1 })
	pid := h.ev.of("slow", servers.StatusLoading)[0].PID
	if st := h.stop("slow", 5*time.Second); st != servers.StatusStopped {
		t.Fatalf("stop while loading: %s", st)
	}
	got, err := res.Result()
	if err != nil || got.(*servers.Started).Err == nil {
		t.Fatalf("the start's answer: %+v %v", got, err)
	}
	if alive(pid) {
		t.Fatalf("pid %d left", pid)
	}
}
