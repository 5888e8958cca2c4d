package scale

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
)

// Config is one scale run.
type Config struct {
	Sessions int // N
	Prompts  int // per session; default 3
	Deltas   int // per answer; default 50
	// Home is the data home; it must be empty or new (the caller owns it).
	Home string
	// Workers create and prompt sessions concurrently; default 512.
	Workers int
	// Timeout bounds the runs; default 10 minutes.
	Timeout time.Duration
	Logger  *slog.Logger
	// RunsDone, if set, is called as the last run ends, before the
	// measuring and verifying (to end a CPU profile of the runs alone).
	RunsDone func()
}

// Result is what one run measured.
type Result struct {
	Sessions int
	// Wall runs from the first Create to the last session's last run.ended
	// reaching its subscriber (so committed).
	Wall   time.Duration
	Events int64 // committed, counted in the store
	// CPU is the process's user and system time over the wall time: less
	// noisy than the wall on a shared machine.
	CPU time.Duration
	// PeakRSS is the process's VmHWM after the runs.
	PeakRSS uint64
	// Idle* are per idle live session after the runs (no subscriber, no
	// run, not passivated), over the baseline taken before any session:
	// live heap after GC, resident memory, goroutines.
	IdleHeap, IdleRSS, IdleGoroutines float64
	Live                              int // session actors alive when measured
	// ChunkP50 and ChunkP99 are the commit-to-subscriber latency of a
	// sample of the deltas (ChunkSamples of them) while the runs went on:
	// from the event's RecordedAt, stamped by its session as it commits
	// it, to the one subscriber's receipt of the committed batch.
	ChunkP50, ChunkP99 time.Duration
	ChunkSamples       int
}

// EventsPerSecond is committed events over wall time.
func (r Result) EventsPerSecond() float64 { return float64(r.Events) / r.Wall.Seconds() }

// CPUPerEvent is CPU time over committed events.
func (r Result) CPUPerEvent() time.Duration { return r.CPU / time.Duration(max(r.Events, 1)) }

func (c *Config) defaults() {
	if c.Prompts <= 0 {
		c.Prompts = 3
	}
	if c.Deltas <= 0 {
		c.Deltas = 50
	}
	if c.Workers <= 0 {
		c.Workers = 512
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Minute
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// Run boots a runtime on cfg.Home, runs cfg.Sessions sessions at once,
// measures, verifies every log, and shuts the runtime down.
func Run(ctx context.Context, cfg Config) (res Result, err error) {
	cfg.defaults()
	if cfg.Sessions <= 0 {
		return res, errors.New("sessions must be positive")
	}
	work := filepath.Join(cfg.Home, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return res, fmt.Errorf("make work dir: %w", err)
	}
	if err := os.WriteFile(filepath.Join(work, SmallFile), []byte("a small file\n"), 0o644); err != nil {
		return res, fmt.Errorf("write %s: %w", SmallFile, err)
	}
	prov, err := newProvider(cfg.Deltas)
	if err != nil {
		return res, err
	}
	rt, err := actors.Start(actors.Options{
		Home: cfg.Home, Logger: cfg.Logger, IdleTimeout: -1, // sessions stay live to be measured
		Engine: testkit.Engine(prov, event.ToolStyleNative), Command: "troupe-scale",
	})
	if err != nil {
		return res, fmt.Errorf("boot: %w", err)
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if serr := rt.Shutdown(sctx); serr != nil && err == nil {
			err = fmt.Errorf("shutdown: %w", serr)
		}
	}()
	before, err := readMemory()
	if err != nil {
		return res, err
	}

	ids := make([]string, cfg.Sessions)
	for i := range ids {
		ids[i] = fmt.Sprintf("scale-%06d", i)
	}
	tr := newTracker(cfg.Sessions, cfg.Prompts, cfg.Deltas)
	trPID := rt.System.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return tr }))
	defer rt.System.Root.Stop(trPID)

	rctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	start, cpu0 := time.Now(), cpuTime()
	subs, err := startSessions(rctx, rt.Sessions, cfg, ids, work, trPID)
	if err != nil {
		return res, err
	}
	cfg.Logger.Info("sessions started", "sessions", cfg.Sessions, "after", time.Since(start), "finished", tr.finished.Load())
	select {
	case <-tr.allEnded:
	case <-rctx.Done():
		return res, fmt.Errorf("%d of %d sessions ended all %d runs before %w", tr.finished.Load(), cfg.Sessions, cfg.Prompts, rctx.Err())
	}
	res.Wall, res.CPU = time.Since(start), cpuTime()-cpu0
	if cfg.RunsDone != nil {
		cfg.RunsDone()
	}
	res.Sessions = cfg.Sessions
	res.ChunkP50, res.ChunkP99, res.ChunkSamples = quantiles(<-tr.samples)

	for i, id := range ids {
		rt.Sessions.Unsubscribe(id, subs[i])
	}
	subs = nil
	select {
	case <-tr.allClosed:
	case <-rctx.Done():
		return res, fmt.Errorf("subscriptions not closed: %w", rctx.Err())
	}
	if res.PeakRSS, err = procStatus("VmHWM"); err != nil {
		return res, err
	}
	after, err := readMemory()
	if err != nil {
		return res, err
	}
	live, err := rt.Sessions.Live(ctx)
	if err != nil {
		return res, err
	}
	res.Live = len(live)
	if res.Live != cfg.Sessions {
		return res, fmt.Errorf("%d sessions live after the runs, want %d: idle memory would be mismeasured", res.Live, cfg.Sessions)
	}
	n := float64(cfg.Sessions)
	res.IdleHeap = (float64(after.heap) - float64(before.heap)) / n
	res.IdleRSS = (float64(after.rss) - float64(before.rss)) / n
	res.IdleGoroutines = float64(after.goroutines-before.goroutines) / n

	if res.Events, err = Verify(ctx, rt.Store, ids, Expect{Prompts: cfg.Prompts, Deltas: cfg.Deltas}); err != nil {
		return res, err
	}
	return res, nil
}

// startSessions creates, subscribes and prompts every session from
// cfg.Workers goroutines; it returns the subscriptions, by index of ids.
func startSessions(ctx context.Context, c *sessions.Client, cfg Config, ids []string, work string, target *actor.PID) ([]*actor.PID, error) {
	subs := make([]*actor.PID, len(ids))
	next := make(chan int)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for range min(cfg.Workers, len(ids)) {
		wg.Go(func() {
			for i := range next {
				sub, err := startSession(ctx, c, ids[i], cfg.Prompts, work, target)
				if err != nil {
					cancel(err)
					continue
				}
				subs[i] = sub
			}
		})
	}
	for i := range ids {
		select {
		case next <- i:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return subs, nil
}

func startSession(ctx context.Context, c *sessions.Client, id string, prompts int, work string, target *actor.PID) (*actor.PID, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := c.Create(ctx, id, event.CreatedPayload{Cwd: work}); err != nil {
		return nil, fmt.Errorf("create %s: %w", id, err)
	}
	sub, err := c.Subscribe(ctx, id, 0, true, target)
	if err != nil {
		return nil, fmt.Errorf("subscribe %s: %w", id, err)
	}
	for k := range prompts {
		text := fmt.Sprintf("prompt %d", k+1)
		if _, err := c.Prompt(ctx, id, sessions.PromptRequest{Content: []event.Block{{Type: "text", Text: text}}}); err != nil {
			return nil, fmt.Errorf("prompt %s: %w", id, err)
		}
	}
	return sub.Subscription, nil
}
