package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/sessions/engine"
	"github.com/troupehq/troupe/persistence/event"
)

type runFlags struct {
	common                  commonFlags
	models                  modelFlags
	sessionID, resume, mode string
	cwd, crashPolicy        string
	yolo, json              bool
}

func newRunCmd(a *app) *cobra.Command {
	var f runFlags
	c := &cobra.Command{
		Use:   "run [flags] PROMPT...",
		Short: "run one prompt to the end and print the transcript",
		Long:  runLong,
	}
	fs := c.Flags()
	c.RunE = a.action(func(pos []string) int { return runRun(f, explicitFlags(fs), pos, a.stdin, a.stdout, a.stderr) })
	f.common.register(fs)
	f.models.register(fs)
	fs.StringVar(&f.sessionID, "session", "", "continue this session (created if it does not exist)")
	fs.StringVar(&f.resume, "resume", "", "continue a session: an id, or latest (newest in this directory)")
	enumVar(fs, &f.mode, "mode", event.ApprovalDefault, approvalModes, "approval mode; calls needing approval are denied")
	fs.StringVar(&f.cwd, "cwd", "", "working directory of a new session (default: current)")
	enumVar(fs, &f.crashPolicy, "crash-policy", event.CrashResume, crashPolicies, "after a crash: resume the interrupted run, or stop it")
	fs.BoolVar(&f.yolo, "yolo", false, "run every tool call without approval (same as --mode yolo)")
	fs.BoolVar(&f.json, "json", false, "print canonical events as NDJSON instead of a transcript")
	return c
}

func runRun(f runFlags, set map[string]bool, pos []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if f.yolo {
		f.mode = event.ApprovalYolo
	}
	prompt := strings.Join(pos, " ")
	if prompt == "-" {
		// The prompt on stdin, as `session prompt ID -` takes it: past the
		// argument list's 128 KiB.
		b, err := io.ReadAll(stdin)
		if err != nil {
			fmt.Fprintf(stderr, "troupe run: read the prompt from stdin: %v\n", err)
			return exitError
		}
		if prompt = string(b); strings.TrimSpace(prompt) == "" {
			fmt.Fprintln(stderr, "troupe run: the prompt on stdin is empty")
			return exitUsage
		}
	}
	if prompt == "" && f.sessionID == "" && f.resume == "" {
		fmt.Fprintln(stderr, "troupe run: give a prompt, or --session ID to continue a run a crash interrupted")
		return exitUsage
	}
	// The flags' model, thinking level and approval mode are defaults for a
	// session whose log sets none; see runsettings.go.
	h, err := startHost(f.common, hostSetup{Command: "troupe run", Engine: f.models.engine(f.mode, true)})
	if err != nil {
		fmt.Fprintf(stderr, "troupe run: %v\n", err)
		return exitCodeOf(err)
	}
	defer h.stop()
	rt := h.rt
	code, err := oneShot(h.ctx, rt, h.eng, f, set, prompt, stdout, stderr)
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if serr := rt.Shutdown(sctx); serr != nil && err == nil {
		err = serr
	}
	if err != nil {
		fmt.Fprintf(stderr, "troupe run: %v\n", err)
		firstUseHint(stderr, rt.Home, err)
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
	if plan.endpoint != "" {
		if err := reachable(ctx, plan.endpoint); err != nil {
			// Nothing is recorded yet: the run stays interrupted for the
			// next resume.
			return exitError, fmt.Errorf("the model server at %s does not answer (%v): the interrupted run is kept; start the server, or pass --base-url URL, and run `troupe run --session %s` again", plan.endpoint, err, plan.id)
		}
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
