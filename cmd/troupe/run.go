package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/troupehq/troupe/actors/queue"
	"github.com/troupehq/troupe/actors/session"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/turn"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime"
	"github.com/troupehq/troupe/runtime/engine"
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
	enumVar(fs, &f.mode, "mode", turn.ModeDefault, approvalModes, "approval mode; calls needing approval are denied")
	fs.StringVar(&f.cwd, "cwd", "", "working directory of a new session (default: current)")
	enumVar(fs, &f.crashPolicy, "crash-policy", session.CrashResume, crashPolicies, "after a crash: resume the interrupted run, or stop it")
	fs.BoolVar(&f.yolo, "yolo", false, "run every tool call without approval (same as --mode yolo)")
	fs.BoolVar(&f.json, "json", false, "print canonical events as NDJSON instead of a transcript")
	pos, err := parse(fs, args)
	if err != nil {
		return exitCode(err)
	}
	if f.yolo {
		f.mode = turn.ModeYolo
	}
	log, err := f.common.logger()
	if err != nil {
		fmt.Fprintf(stderr, "troupe run: %v\n", err)
		return 2
	}
	home, err := runtime.ResolveHome(f.common.home)
	if err != nil {
		fmt.Fprintf(stderr, "troupe run: %v\n", err)
		return 1
	}
	eng, err := engine.New(engine.Options{
		Home: home, Thinking: f.models.thinking, Mode: f.mode, DenyUnapproved: true, MaxSteps: f.models.maxTurns, AutoRetry: !f.models.noRetry,
		Selection: f.models.selection(),
	})
	if err == nil {
		err = eng.Check()
	}
	if err != nil {
		fmt.Fprintf(stderr, "troupe run: %v\n", err)
		return 2
	}
	rt, err := runtime.Boot(runtime.Options{Home: home, Logger: log, Engine: eng.Session(), Command: "troupe run"})
	if err != nil {
		fmt.Fprintf(stderr, "troupe run: %v\n", err)
		return 1
	}
	ctx, stop := runtime.NotifyShutdown(context.Background(), log)
	defer stop()
	code, err := oneShot(ctx, rt, f, strings.Join(pos, " "), stdout)
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if serr := rt.Shutdown(sctx); serr != nil && err == nil {
		err = serr
	}
	if err != nil {
		fmt.Fprintf(stderr, "troupe run: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// oneShot runs (or continues) one run and prints it; the code is the run's.
func oneShot(ctx context.Context, rt *runtime.Runtime, f runFlags, prompt string, stdout io.Writer) (int, error) {
	id, err := pickSession(ctx, rt, f)
	if err != nil {
		return 2, err
	}
	// Runs must survive the signal that cancels ctx long enough to end
	// cleanly, so requests use their own context.
	bg := context.Background()
	// What was committed before the session wakes: waking may close a run
	// a crash interrupted, and those events belong in the output.
	meta, err := rt.Store.Session(bg, id)
	if err != nil {
		return 1, err
	}
	stream, err := rt.Sessions.Stream(bg, id, meta.LastSeq+1, false)
	if err != nil {
		return 1, err
	}
	st, err := rt.Sessions.State(bg, id)
	if err != nil {
		return 1, err
	}
	defer stream.Close()
	runID := st.ActiveRun
	if prompt != "" {
		res, err := rt.Sessions.Do(bg, id, &session.Prompt{Content: []event.Block{{Type: "text", Text: prompt}}, Client: "troupe run"})
		if err != nil {
			return 1, err
		}
		q, err := enqueued(res)
		if err != nil {
			return 1, err
		}
		runID = q
	}
	if runID == "" {
		return 2, fmt.Errorf("session %s has no interrupted run to continue: give a prompt", id)
	}
	out := newTranscript(stdout, f.json)
	out.header(id)
	for {
		e, err := nextEvent(ctx, rt, id, stream)
		if err != nil {
			return 1, err
		}
		out.event(e)
		if p, ok := runEnded(e); ok && p.RunID == runID {
			out.footer(p)
			return exitFor(p.StopReason), nil
		}
	}
}

// nextEvent reads the stream; the first interrupt cancels the run and the
// loop goes on to print its end.
func nextEvent(ctx context.Context, rt *runtime.Runtime, id string, stream *sessions.Stream) (event.Event, error) {
	for {
		e, err := stream.Next(ctx)
		if err == nil || !errors.Is(err, context.Canceled) {
			return e, err
		}
		if _, cerr := rt.Sessions.Do(context.Background(), id, &session.CancelRun{Reason: "interrupted"}); cerr != nil {
			return event.Event{}, cerr
		}
		ctx = context.Background()
	}
}

func pickSession(ctx context.Context, rt *runtime.Runtime, f runFlags) (string, error) {
	cwd := f.cwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	id := f.sessionID
	switch {
	case f.resume == "latest":
		list, err := rt.Store.Sessions(ctx, cwd)
		if err != nil {
			return "", err
		}
		if len(list) == 0 {
			return "", fmt.Errorf("no session to resume in %s", cwd)
		}
		return list[0].ID, nil
	case f.resume != "":
		if _, err := rt.Store.Session(ctx, f.resume); err != nil {
			return "", err
		}
		return f.resume, nil
	case id == "":
		id = sessions.NewID()
	}
	if _, err := rt.Store.Session(ctx, id); err == nil {
		return id, nil
	} else if !errors.Is(err, persistence.ErrSessionNotFound) {
		return "", err
	}
	policy := f.crashPolicy
	err := rt.Sessions.Create(ctx, id, event.CreatedPayload{
		Cwd: cwd, OriginTransport: "run",
		Settings: event.Settings{CrashPolicy: &policy},
	})
	return id, err
}

func enqueued(res any) (string, error) {
	q, ok := res.(*queue.Enqueued)
	if !ok {
		return "", fmt.Errorf("unexpected reply %T to a prompt", res)
	}
	return q.MessageID, q.Err
}

func runEnded(e event.Event) (event.RunEndedPayload, bool) {
	var p event.RunEndedPayload
	if e.Kind != event.RunEnded || e.Decode(&p) != nil {
		return p, false
	}
	return p, true
}

// exitFor maps a stop reason to the exit status: success for a finished
// answer, 1 for a failure, 130 (as for SIGINT) for a cancelled run.
func exitFor(stop string) int {
	switch stop {
	case turn.StopEndTurn, turn.StopMaxTokens, turn.StopMaxTurnRequests:
		return 0
	case turn.StopCancelled:
		return 130
	}
	return 1
}
