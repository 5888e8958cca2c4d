package sim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// Options say where a scenario runs.
type Options struct {
	// Bin is the troupe binary the runner starts its own daemon from, on a
	// home of its own (every fault kind is then possible).
	Bin string
	// DaemonURL, Token and Home name a daemon already running instead
	// (Home, when given, is where its store is read for the checks;
	// kill_daemon is refused). Its model must be the runner's scripted
	// models: start it with OPENAI_BASE_URL at LLMListen.
	DaemonURL, Token, Home string
	// LLMListen is where the scripted models listen (default port 0).
	LLMListen string
	// Work holds the home and the sessions' directories; a temporary one
	// (removed after) when empty.
	Work string
	// Seed overrides the scenario's.
	Seed    uint64
	SeedSet bool
	Log     *slog.Logger
	// Inject breaks the run on purpose, to show the checks catch it:
	// "drop-acked-event" deletes, at the first kill_daemon (held until a
	// client was shown an event), the events from the last one a client
	// was shown; "duplicate-update" gives a client one update twice.
	Inject string
}

// runner is one run of a scenario.
type runner struct {
	scn      *Scenario
	opts     Options
	seed     uint64
	log      *slog.Logger
	work     string
	home     string
	d        *daemon
	models   *models
	sessions []*session
	byName   map[string]*session
	res      *Result

	// gate: actions hold it shared; a daemon restart holds it alone.
	gate       sync.RWMutex
	bg         sync.WaitGroup // reattaches after drops
	injected   bool
	lastHealth time.Time
	textWait   time.Time
}

// Run runs the scenario and checks its invariants. An error means the run
// could not be made (bad options, a daemon that would not start); what
// went wrong inside the run is in the Result's violations.
func Run(ctx context.Context, scn *Scenario, opts Options) (*Result, error) {
	r := &runner{scn: scn, opts: opts, seed: scn.Seed, log: opts.Log, byName: map[string]*session{}}
	if opts.SeedSet {
		r.seed = opts.Seed
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	plan := Plan(scn, r.seed)
	if opts.DaemonURL != "" {
		for _, a := range plan {
			if a.Kind == KillDaemon {
				return nil, errors.New("the scenario kills the daemon: run it with a daemon of its own (--embedded), not --daemon")
			}
		}
	}
	r.res = &Result{Scenario: scn.Name, Seed: r.seed, Plan: plan}
	goroutines := runtime.NumGoroutine()
	if err := r.setup(); err != nil {
		r.teardown()
		return nil, err
	}
	start := time.Now()
	r.play(ctx, plan, start)
	r.settle(ctx)
	r.res.Wall = time.Since(start)
	r.finalChecks()
	r.teardown()
	r.leakChecks(goroutines)
	return r.res, nil
}

func (r *runner) setup() error {
	r.work = r.opts.Work
	if r.work == "" {
		dir, err := os.MkdirTemp("", "troupe-sim-")
		if err != nil {
			return fmt.Errorf("work dir: %w", err)
		}
		r.work = dir
	}
	var err error
	if r.models, err = startModels(cmp.Or(r.opts.LLMListen, "127.0.0.1:0")); err != nil {
		return err
	}
	r.home = filepath.Join(r.work, "home")
	r.d = &daemon{bin: r.opts.Bin, home: r.home, owned: r.opts.DaemonURL == "", logs: r.opts.Work,
		env:  []string{"OPENAI_BASE_URL=" + r.models.URL() + "/v1", "OPENAI_API_KEY="},
		args: []string{"--provider", "openai", "--model", "tiny", "--approval-mode", r.scn.ApprovalMode}}
	if r.d.owned {
		if r.opts.Bin == "" {
			return errors.New("no troupe binary to start a daemon from")
		}
		if err := r.d.start(); err != nil {
			return err
		}
	} else {
		r.d.url, r.d.token, r.home = r.opts.DaemonURL, r.opts.Token, r.opts.Home
		r.log.Info("scripted models listening; the daemon's OPENAI_BASE_URL must point here", "url", r.models.URL()+"/v1")
	}
	for _, name := range r.scn.sessionNames() {
		cwd := filepath.Join(r.work, "sessions", name)
		if err := os.MkdirAll(filepath.Join(cwd, "effects"), 0o755); err != nil {
			return fmt.Errorf("session directory: %w", err)
		}
		s := newSession(name, r.scn.spec(name), cwd)
		r.sessions = append(r.sessions, s)
		r.byName[name] = s
	}
	return r.parallel(func(s *session) error {
		for _, c := range s.clients {
			if err := c.connect(r.d); err != nil {
				return fmt.Errorf("session %s: %w", s.name, err)
			}
			if c.idx == 0 {
				if err := r.models.add(s.id, s.spec.script); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// parallel runs fn for every session, 32 at a time, and returns the first
// error.
func (r *runner) parallel(fn func(*session) error) error {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	errs := make(chan error, len(r.sessions))
	for _, s := range r.sessions {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			if err := fn(s); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// play runs the plan's actions at their times, in order.
func (r *runner) play(ctx context.Context, plan []Action, start time.Time) {
	for _, a := range plan {
		select {
		case <-ctx.Done():
			r.res.note("stopped early: %v", ctx.Err())
			return
		case <-time.After(time.Until(start.Add(a.At))):
		}
		if err := r.do(a); err != nil {
			r.res.note("%s: %v", a, err)
		}
		r.res.Done = append(r.res.Done, done{Action: a, At: time.Since(start)})
	}
	r.bg.Wait()
}

func (r *runner) do(a Action) error {
	if r.opts.Inject == "freeze-daemon" && !r.injected && a.At > 0 && r.d.owned {
		// SIGSTOP: alive, and answering nothing.
		_ = syscall.Kill(r.d.proc.Cmd.Process.Pid, syscall.SIGSTOP)
		r.injected = true
		r.res.note("inject: the daemon was sent SIGSTOP")
	}
	r.reviveIfDead()
	if a.Kind == KillDaemon {
		return r.restartDaemon()
	}
	r.gate.RLock()
	defer r.gate.RUnlock()
	s := r.byName[a.Session]
	switch a.Kind {
	case actPrompt:
		p := &promptRec{key: a.Prompt, text: fmt.Sprintf("%s (%s %s)", a.Text, s.name, a.Prompt)}
		s.addPrompt(p)
		c := s.clients[0]
		if !c.connected() {
			if err := c.connect(r.d); err != nil {
				s.mu.Lock()
				p.lost = true
				s.mu.Unlock()
				return err
			}
		}
		if err := c.prompt(p, a.Position); err != nil {
			// Never sent: the store cannot have it.
			s.mu.Lock()
			p.lost = true
			s.mu.Unlock()
			return err
		}
		return nil
	case actUpdate, actCancel:
		return r.editQueued(s, a)
	case actDetach:
		return s.clients[a.Client].detach()
	case actReattach:
		return s.clients[a.Client].connect(r.d)
	case DropClient:
		c := s.clients[a.Client]
		c.drop()
		r.bg.Go(func() {
			time.Sleep(max(a.For, 100*time.Millisecond))
			r.gate.RLock()
			defer r.gate.RUnlock()
			if err := c.connect(r.d); err != nil {
				r.res.note("%s: reattach: %v", a, err)
			}
		})
		return nil
	case KillSession:
		if err := r.restKill(s.id); err != nil {
			return err
		}
		// A stopped session comes back at its next attach: its clients
		// reattach, as an editor would.
		for _, c := range s.clients {
			c.drop()
			if err := c.connect(r.d); err != nil {
				return err
			}
		}
		return nil
	case KillTool:
		n := killUnder(s.cwd)
		r.res.note("%s: killed %d tool processes", a, n)
		return nil
	case KillLLM:
		r.models.kill(a.For)
		return nil
	}
	return fmt.Errorf("unknown action %q", a.Kind)
}

// editQueued updates or cancels a prompt still in the queue; one already
// started is left alone (the queue answers so).
func (r *runner) editQueued(s *session, a Action) error {
	p := s.prompt(a.Prompt)
	if p == nil {
		return errors.New("no such prompt sent")
	}
	s.mu.Lock()
	id := p.messageID
	s.mu.Unlock()
	if id == "" {
		r.res.note("%s: prompt %s was not queued (already running or done): nothing to edit", a, a.Prompt)
		return nil
	}
	params := map[string]any{"sessionId": s.id, "messageId": id}
	method := "hydra-acp/prompt/cancel"
	if a.Kind == actUpdate {
		method = "hydra-acp/prompt/update"
		params["prompt"] = []any{map[string]any{"type": "text", "text": a.Text}}
	}
	_, err := s.clients[0].call(method, params)
	return err
}

// restKill stops a session's actor through the REST API.
func (r *runner) restKill(id string) error {
	req, err := http.NewRequest(http.MethodPost, r.d.url+"/v1/sessions/"+id+"/kill", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+r.d.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("kill session: %w", err)
	}
	res.Body.Close()
	if res.StatusCode >= 300 && res.StatusCode != http.StatusNoContent {
		return fmt.Errorf("kill session: status %d", res.StatusCode)
	}
	return nil
}

// restartDaemon SIGKILLs the daemon, checks what the store kept, starts
// another on the same home and reattaches every client after_message.
func (r *runner) restartDaemon() error {
	r.gate.Lock()
	defer r.gate.Unlock()
	if r.opts.Inject == "drop-acked-event" && !r.injected {
		// The plan's kill time does not promise a client was shown
		// anything yet (a slow daemon may not have answered): the
		// injection needs an acknowledged event to drop.
		r.waitShown(30 * time.Second)
	}
	r.res.count(invUp)
	if err := r.d.kill(); err != nil {
		return err
	}
	t0 := time.Now()
	// The killed daemon's CPU time: its work, whatever else loads the machine.
	var cpu time.Duration
	if ps := r.d.proc.Cmd.ProcessState; ps != nil {
		cpu = ps.UserTime() + ps.SystemTime()
	}
	for _, s := range r.sessions {
		for _, c := range s.clients {
			c.drop()
		}
	}
	if r.opts.Inject == "drop-acked-event" && !r.injected {
		r.injectDrop()
	}
	r.checkStore(fmt.Sprintf("after kill %d", r.res.Kills+1))
	checked := time.Since(t0)
	r.res.Kills++
	if err := r.d.start(); err != nil {
		return err
	}
	started := time.Since(t0)
	err := r.parallel(func(s *session) error {
		for _, c := range s.clients {
			if err := c.connect(r.d); err != nil {
				return fmt.Errorf("session %s: reattach: %w", s.name, err)
			}
		}
		return nil
	})
	r.res.Restarts = append(r.res.Restarts, time.Since(t0))
	r.log.Info("daemon restarted", "kill", r.res.Kills, "checked", checked.Round(time.Millisecond),
		"started", started.Round(time.Millisecond), "reattached", time.Since(t0).Round(time.Millisecond),
		"killed_daemon_cpu", cpu.Round(time.Millisecond), "err", err)
	return err
}

// reviveIfDead notices a daemon that died on its own, or stopped
// answering /v1/health within 10s (it is then sent SIGQUIT, for Go's goroutine dump,
// and SIGKILL), reports it with the end of its stderr, and starts another
// so the scenario goes on. Health is asked at most once a second.
func (r *runner) reviveIfDead() {
	if !r.d.owned || r.d.proc == nil {
		return
	}
	hung := false
	if !r.d.exited() && time.Since(r.lastHealth) > time.Second {
		r.lastHealth = time.Now()
		hung = !r.d.healthy(10 * time.Second)
	}
	if !hung && !r.d.exited() {
		return
	}
	r.gate.Lock()
	defer r.gate.Unlock()
	if hung {
		r.d.proc.Signal(syscall.SIGQUIT)
		r.d.proc.Signal(syscall.SIGCONT) // a stopped process takes the QUIT once it runs
		if _, err := r.d.proc.ExitCode(10 * time.Second); err != nil {
			r.d.proc.Kill()
		}
		_, _ = r.d.proc.ExitCode(30 * time.Second)
		r.res.violate(Violation{Invariant: invUp, Detail: "the daemon stopped answering /v1/health for 10s; its goroutines:\n" + goroutineSummary(r.d.proc.Stderr())})
	} else {
		<-r.d.proc.Done()
		// ProcessState says "exit status 2" or names the signal.
		r.res.violate(Violation{Invariant: invUp, Detail: fmt.Sprintf("the daemon ended by itself (%s):\n%s", r.d.proc.Cmd.ProcessState, crashLines(r.d.proc.Stderr()))})
	}
	r.d.proc.Stop()
	r.d.keepLog()
	for _, s := range r.sessions {
		for _, c := range s.clients {
			c.drop()
		}
	}
	r.checkStore("after the daemon's own death")
	if err := r.d.start(); err != nil {
		r.res.note("restart after the daemon's death: %v", err)
		return
	}
	if err := r.parallel(func(s *session) error {
		for _, c := range s.clients {
			if err := c.connect(r.d); err != nil {
				return fmt.Errorf("session %s: reattach: %w", s.name, err)
			}
		}
		return nil
	}); err != nil {
		r.res.note("reattach after the daemon's death: %v", err)
	}
}

// injectDrop deletes the events from the last one a client was shown.
func (r *runner) injectDrop() {
	for _, s := range r.sessions {
		if seq := s.clients[0].lastSeq(); seq > 0 {
			if err := deleteFrom(filepath.Join(r.home, "troupe.db"), s.id, seq); err != nil {
				r.res.note("inject: %v", err)
				return
			}
			r.injected = true
			r.res.note("inject: deleted %s's events from seq %d on from the store", s.name, seq)
			return
		}
	}
	r.res.note("inject: no client was shown an event by the kill: nothing to drop")
}

// waitShown waits, up to timeout, until a session's first client was shown
// an event with a seq.
func (r *runner) waitShown(timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		for _, s := range r.sessions {
			if s.clients[0].lastSeq() > 0 {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// settle waits, up to the scenario's settle time, for every prompt to
// end: answered, or ended in the store.
func (r *runner) settle(ctx context.Context) {
	deadline := time.Now().Add(r.scn.Settle.D())
	for time.Now().Before(deadline) && ctx.Err() == nil {
		r.reviveIfDead()
		if r.allEnded() {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// teardown closes the clients, stops the daemon (in order) and the models.
func (r *runner) teardown() {
	for _, s := range r.sessions {
		for _, c := range s.clients {
			c.drop()
		}
	}
	if r.d != nil && r.d.proc != nil {
		r.reviveIfDead()
		r.res.count(invUp)
		r.res.count(invShutdown)
		code, err := r.d.stop()
		r.res.ShutdownCode = code
		if err != nil || code != 0 {
			r.res.violate(Violation{Invariant: invShutdown, Detail: fmt.Sprintf("daemon exit %d: %v\n%s", code, err, crashLines(r.d.proc.Stderr()))})
		}
	}
	if r.models != nil {
		r.models.close()
	}
	http.DefaultClient.CloseIdleConnections()
	if r.opts.Work == "" && r.work != "" {
		defer os.RemoveAll(r.work)
	}
	if r.d != nil && r.d.owned && r.home != "" {
		r.integrity("after shutdown")
	}
}
