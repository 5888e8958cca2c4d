package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/sessions/engine"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/datahome"
)

type runFlags struct {
	common                  commonFlags
	models                  modelFlags
	sessionID, resume, mode string
	cwd, crashPolicy        string
	yolo, json              bool
}

func runRun(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var f runFlags
	fs := newFlagSet("run", stderr)
	f.common.register(fs)
	f.models.register(fs)
	fs.StringVar(&f.sessionID, "session", "", "continue this session (created if it does not exist)")
	fs.StringVar(&f.resume, "resume", "", "continue a session: an id, or latest (newest in this directory)")
	enumVar(fs, &f.mode, "mode", event.ApprovalDefault, approvalModes, "approval mode; calls needing approval are denied")
	fs.StringVar(&f.cwd, "cwd", "", "working directory of a new session (default: current)")
	enumVar(fs, &f.crashPolicy, "crash-policy", event.CrashResume, crashPolicies, "after a crash: resume the interrupted run, or stop it")
	fs.BoolVar(&f.yolo, "yolo", false, "run every tool call without approval (same as --mode yolo)")
	fs.BoolVar(&f.json, "json", false, "print canonical events as NDJSON instead of a transcript")
	fs.Usage = func() { runUsage(fs) }
	pos, err := parse(fs, args)
	if err != nil {
		return exitCode(err)
	}
	set := explicitFlags(fs)
	if f.yolo {
		f.mode = event.ApprovalYolo
	}
	prompt := strings.Join(pos, " ")
	if prompt == "" && f.sessionID == "" && f.resume == "" {
		fmt.Fprintln(stderr, "troupe run: give a prompt, or --session ID to continue a run a crash interrupted")
		return exitUsage
	}
	log, err := f.common.logger()
	if err != nil {
		fmt.Fprintf(stderr, "troupe run: %v\n", err)
		return exitUsage
	}
	home, err := datahome.Resolve(f.common.home, log)
	if err != nil {
		fmt.Fprintf(stderr, "troupe run: %v\n", err)
		return exitError
	}
	// The flags' model, thinking level and approval mode are defaults for a
	// session whose log sets none; see runsettings.go.
	eng, err := engine.New(engine.Options{
		Home: home, Thinking: f.models.thinking, Mode: f.mode, DenyUnapproved: true, MaxSteps: f.models.maxTurns, AutoRetry: !f.models.noRetry,
		Selection: f.models.selection(),
	})
	if err != nil {
		fmt.Fprintf(stderr, "troupe run: %v\n", err)
		return exitUsage
	}
	// --provider llama runs on the home's llama-server configs.
	local := &actors.LazyServers{}
	eng.SetLocalServers(local)
	rt, err := actors.Start(actors.Options{Home: home, Logger: log, Engine: eng.Session(), Command: "troupe run"})
	if err != nil {
		fmt.Fprintf(stderr, "troupe run: %v\n", err)
		return exitError
	}
	local.Bind(rt)
	ctx, stop := actors.NotifyShutdown(context.Background(), log)
	defer stop()
	code, err := oneShot(ctx, rt, eng, f, set, prompt, stdout, stderr)
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if serr := rt.Shutdown(sctx); serr != nil && err == nil {
		err = serr
	}
	if err != nil {
		fmt.Fprintf(stderr, "troupe run: %v\n", err)
		if code == exitOK {
			code = exitError
		}
	}
	return code
}

// oneShot runs (or continues) one run and prints it; the code is the run's.
func oneShot(ctx context.Context, rt *actors.Runtime, eng *engine.Engine, f runFlags, set map[string]bool, prompt string, stdout, stderr io.Writer) (int, error) {
	plan, err := planRun(ctx, rt.Store, eng, f, set, prompt)
	if err != nil {
		return exitUsage, err
	}
	// Runs must survive the signal that cancels ctx long enough to end
	// cleanly, so requests use their own context.
	bg := context.Background()
	from, err := plan.start(bg, rt.Sessions)
	if err != nil {
		return exitError, err
	}
	// From the log's end before this invocation: waking the session may
	// close a run a crash interrupted, and those events belong in the output.
	stream, err := rt.Sessions.Stream(bg, plan.id, from+1, false)
	if err != nil {
		return exitError, err
	}
	defer stream.Close()
	runID := plan.runID
	if prompt != "" {
		res, err := rt.Sessions.Prompt(bg, plan.id, sessions.PromptRequest{Content: []event.Block{{Type: "text", Text: prompt}}, Client: "troupe run"})
		if err != nil {
			return exitError, err
		}
		runID = res.MessageID
	}
	out := newTranscript(stdout, stderr, f.json)
	out.header(plan.id)
	for {
		e, err := nextEvent(ctx, rt, plan.id, stream)
		if err != nil {
			return exitError, err
		}
		out.event(e)
		if p, ok := runEnded(e); ok && p.RunID == runID {
			out.footer(p, plan.id)
			return exitFor(p.StopReason, out.unasked()), nil
		}
	}
}

// nextEvent reads the stream; the first interrupt cancels the run and the
// loop goes on to print its end.
func nextEvent(ctx context.Context, rt *actors.Runtime, id string, stream *sessions.Stream) (event.Event, error) {
	for {
		e, err := stream.Next(ctx)
		if err == nil || !errors.Is(err, context.Canceled) {
			return e, err
		}
		if _, cerr := rt.Sessions.Cancel(context.Background(), id, "interrupted"); cerr != nil {
			return event.Event{}, cerr
		}
		ctx = context.Background()
	}
}

func runEnded(e event.Event) (event.RunEndedPayload, bool) {
	var p event.RunEndedPayload
	if e.Kind != event.RunEnded || e.Decode(&p) != nil {
		return p, false
	}
	return p, true
}
