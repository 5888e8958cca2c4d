package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/actors/sessions/mcp"
	"github.com/troupehq/troupe/runtime/agentjs"
	"github.com/troupehq/troupe/runtime/agentpkg"
	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/runtime/tools"
)

// props makes the run's actor. A restarted actor (its first incarnation
// panicked) does not run the agent again: it ends the run with an error,
// so nothing the agent did runs twice.
func props(opts Options, out *outbox, end chan<- done) *actor.Props {
	var incarnations atomic.Int32
	var once sync.Once
	report := func(d done) { once.Do(func() { end <- d }) }
	return actor.PropsFromProducer(func() actor.Actor {
		return &runner{opts: opts, out: out, report: report, first: incarnations.Add(1) == 1}
	})
}

// errCrashed ends a run whose actor panicked.
var errCrashed = errors.New("agent run crashed; not run again")

// runner is the run's actor.
type runner struct {
	opts   Options
	out    *outbox
	report func(done) // the run's end, once over every incarnation
	first  bool

	log    *slog.Logger
	rt     *agentjs.Runtime
	jobs   chan func() any
	closed atomic.Bool // no more messages from the worker
	cancel context.CancelFunc
	ctx    context.Context
	timer  *time.Timer
	ended  bool
	stop   error // why the run is being stopped (cancel, limit)
	result done

	printMu sync.Mutex
	printed strings.Builder

	loop *agentic

	setup      *agentjs.Setup // the entry point's, once loaded
	mcpPending int            // MCP servers whose tools are not in yet
	mcpTools   []tools.Tool
}

func (r *runner) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		r.log = actorlog.For(ctx, "agent", r.opts.Manifest.Name)
		if !r.first {
			// The crashed incarnation reported the end (errCrashed).
			ctx.Stop(ctx.Self())
			return
		}
		r.start(ctx)
	case *Cancel:
		why := ErrCancelled
		if msg.Reason != "" {
			why = fmt.Errorf("%w: %s", ErrCancelled, msg.Reason)
		}
		r.interrupt(ctx, why)
	case timeUp:
		r.interrupt(ctx, msg)
	case loaded:
		r.onLoaded(ctx, msg)
	case replied:
		r.loop.onReply(ctx, r, msg)
	case toolRan:
		r.loop.onTool(ctx, r, msg)
	case *mcp.ToolsReply:
		r.onMCPTools(ctx, msg)
	case *actor.Restarting:
		r.close(errCrashed)
	case *actor.Stopping, *actor.Stopped:
		r.close(ErrCancelled)
	default:
		actorlog.Unhandled(r.log, ctx)
	}
}

// start builds the runtime and its worker, then loads the entry point.
func (r *runner) start(ctx actor.Context) {
	r.ctx, r.cancel = context.WithCancel(context.Background())
	m := r.opts.Manifest
	rt, err := agentjs.New(agentjs.Config{
		Dir: r.opts.Dir, Cwd: r.opts.Cwd, Permissions: m.Permissions, Env: m.Env,
		Print: r.print, Progress: r.progress, Input: r.opts.Input, AskLLM: r.askLLM,
	})
	if err != nil {
		r.finish(ctx, Result{}, err)
		return
	}
	r.rt = rt
	r.jobs = make(chan func() any, 1)
	self, system := ctx.Self(), ctx.ActorSystem()
	go r.work(func(msg any) {
		if !r.closed.Load() {
			system.Root.Send(self, msg)
		}
	})
	limit := r.opts.Limit
	r.timer = time.AfterFunc(limit, func() { system.Root.Send(self, timeUp{limit: limit}) })
	r.run(func() any {
		s, err := rt.Load(m.Entry)
		return loaded{setup: s, err: err}
	})
	if m.Mode == agentpkg.ModeAgentic {
		r.startMCP(ctx)
	}
}

// work is the worker: it runs the jobs one at a time, then closes the
// runtime (killing what the agent still runs) and only then reports the
// end, so a run's caller never sees it over while its commands live.
func (r *runner) work(send func(any)) {
	for job := range r.jobs {
		send(job())
	}
	r.rt.Close()
	r.report(r.result)
}

// run hands the worker its next job; the actor runs one at a time, so the
// channel (capacity 1) never blocks.
func (r *runner) run(job func() any) { r.jobs <- job }

type loaded struct {
	setup agentjs.Setup
	err   error
}

func (r *runner) onLoaded(ctx actor.Context, msg loaded) {
	if r.ended {
		return
	}
	if msg.err != nil {
		r.finish(ctx, Result{}, r.stopped(msg.err))
		return
	}
	r.tracef("tools: %d", len(msg.setup.Tools))
	if r.opts.Manifest.Mode == agentpkg.ModeScript {
		r.printMu.Lock()
		text := r.printed.String()
		r.printMu.Unlock()
		r.finish(ctx, Result{Status: "ok", Result: text}, nil)
		return
	}
	r.setup = &msg.setup
	r.maybeBegin(ctx)
}

// maybeBegin starts the loop once the entry point is loaded and every MCP
// server's tools are in.
func (r *runner) maybeBegin(ctx actor.Context) {
	if r.setup == nil || r.mcpPending > 0 || r.loop != nil {
		return
	}
	r.loop = newAgentic(r, *r.setup, r.mcpTools)
	r.loop.begin(ctx, r)
}

// stopped prefers the reason the run was stopped over the error it made.
func (r *runner) stopped(err error) error {
	if r.stop != nil {
		return r.stop
	}
	return err
}

// interrupt stops the run for why: the VM and the model call are cut, the
// job under way returns with an error, and the run ends with why.
func (r *runner) interrupt(ctx actor.Context, why error) {
	if r.ended || r.stop != nil {
		return
	}
	r.stop = why
	r.log.Info("agent run interrupted", "reason", why)
	r.cancel()
	r.rt.Interrupt(why.Error())
	r.finish(ctx, Result{}, why)
}

// finish ends the run once: the worker finishes its job, closes the
// runtime and reports.
func (r *runner) finish(ctx actor.Context, res Result, err error) {
	if r.ended {
		return
	}
	r.ended = true
	r.result = done{res: res, err: err}
	r.close(nil)
	ctx.Stop(ctx.Self())
}

// close stops the timer and the worker, which reports the end; with no
// worker it reports here. A run not ended yet (stopped from outside,
// crashed) ends with why.
func (r *runner) close(why error) {
	if r.timer != nil {
		r.timer.Stop()
	}
	if r.cancel != nil {
		r.cancel()
	}
	if !r.ended {
		r.ended = true
		r.result = done{err: why}
		if r.rt != nil {
			r.rt.Interrupt(why.Error())
		}
	}
	if r.jobs == nil {
		r.report(r.result)
		return
	}
	if !r.closed.Swap(true) {
		close(r.jobs)
	}
}

// print is print()'s output: a log event, kept for script mode's result.
func (r *runner) print(text string, newline bool) {
	if newline {
		text += "\n"
	}
	r.printMu.Lock()
	r.printed.WriteString(text)
	r.printMu.Unlock()
	r.out.push(Event{Kind: KindLog, Data: Log{Message: strings.TrimSuffix(text, "\n")}})
}

// progress is eprint(): agent.progress in an agentic run, a stderr log
// line in a script.
func (r *runner) progress(line string) {
	if r.opts.Manifest.Mode == agentpkg.ModeScript {
		r.out.push(Event{Kind: KindLog, Data: Log{Message: line, Stream: "stderr"}})
		return
	}
	r.out.push(Event{Kind: KindAgent, Data: ProgressEvent{Type: "agent.progress", Message: line}})
}

func (r *runner) agentEvent(data any) { r.out.push(Event{Kind: KindAgent, Data: data}) }

func (r *runner) tracef(format string, args ...any) {
	if r.opts.Trace {
		r.out.push(Event{Kind: KindTrace, Data: fmt.Sprintf(format, args...)})
	}
}

// askLLM is ask_llm(): one user message to the run's model.
func (r *runner) askLLM(ctx context.Context, prompt string) (string, error) {
	if r.opts.Provider == nil {
		return "", errors.New("ask_llm: this run has no model")
	}
	resp, err := r.opts.Provider.Stream(ctx, llm.Request{Model: r.opts.Model, SessionID: r.opts.SessionID,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: prompt}}}, nil)
	if err != nil {
		return "", fmt.Errorf("ask_llm: %w", err)
	}
	return resp.Message.Content, nil
}
