package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions/engine"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/datahome"
	"github.com/troupehq/troupe/runtime/logging"
	"github.com/troupehq/troupe/transports/rpc"
)

func init() {
	register(command{
		name: "rpc", args: "[flags] [--partials full|skeleton]",
		summary: "the indusagi RPC protocol on stdin/stdout (also: --mode rpc)",
		run:     runRPC, match: matchModeRPC,
	})
}

// matchModeRPC recognises `--mode rpc` or `--mode=rpc` anywhere in the
// args, as indusagi hosts start the agent, and removes it.
func matchModeRPC(args []string) ([]string, bool) {
	for i, a := range args {
		switch {
		case a == "--mode" || a == "-mode":
			if i+1 < len(args) && args[i+1] == "rpc" {
				return append(append([]string(nil), args[:i]...), args[i+2:]...), true
			}
		case a == "--mode=rpc" || a == "-mode=rpc":
			return append(append([]string(nil), args[:i]...), args[i+1:]...), true
		}
	}
	return nil, false
}

type rpcFlags struct {
	common              commonFlags
	models              modelFlags
	sessionDir, session string
	approval, cwd       string
	maxLine             int
	noSession           bool
	partials            rpc.Partials
	ignored             [5]bool
}

func runRPC(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f rpcFlags
	fs := newFlagSet("rpc", stderr)
	f.common.register(fs)
	f.models.register(fs)
	fs.StringVar(&f.sessionDir, "session-dir", "", "keep sessions in DIR/troupe.db instead of the home's store")
	fs.StringVar(&f.session, "session", "", "continue this session")
	enumVar(fs, &f.approval, "approval-mode", event.ApprovalYolo, approvalModes, "approval mode; the protocol cannot ask, so calls needing approval are denied")
	fs.StringVar(&f.cwd, "cwd", "", "working directory of new sessions (default: current)")
	fs.IntVar(&f.maxLine, "max-line", 0, "largest accepted command line in bytes (default 16 MiB)")
	fs.BoolVar(&f.noSession, "no-session", false, "keep nothing after exit")
	partials := "full"
	enumVar(fs, &partials, "partials", partials, []string{"full", "skeleton"}, "message_update's partial message: with the text so far, or without text for clients that read only the deltas")
	// pi's switches for features troupe does not have; accepted so that
	// existing launch lines work.
	for i, name := range []string{"no-extensions", "no-skills", "no-prompt-templates", "no-context-files", "offline"} {
		fs.BoolVar(&f.ignored[i], name, false, "accepted for compatibility; no effect")
	}
	if _, err := parse(fs, args); err != nil {
		return exitCode(err)
	}
	f.partials, _ = rpc.ParsePartials(partials) // enumVar admits only its values
	fail := func(code int, err error) int {
		fmt.Fprintf(stderr, "troupe rpc: %v\n", err)
		return code
	}
	log, err := logging.New(logging.Options{Level: f.common.logLevel, Format: f.common.logFormat})
	if err != nil {
		return fail(2, err)
	}
	home, err := datahome.Resolve(f.common.home, log)
	if err != nil {
		return fail(1, err)
	}
	sel := f.models.selection()
	eng, err := engine.New(engine.Options{
		Home: home, Thinking: f.models.thinking, Mode: f.approval, DenyUnapproved: true, MaxSteps: f.models.maxTurns, AutoRetry: !f.models.noRetry, Selection: sel,
	})
	local := &actors.LazyServers{} // --provider llama: the home's llama-server configs
	if err == nil {
		eng.SetLocalServers(local)
		err = eng.Check()
	}
	if err != nil {
		return fail(2, err)
	}
	storeHome := home
	switch {
	case f.noSession:
		if storeHome, err = os.MkdirTemp("", "troupe-rpc-"); err != nil {
			return fail(1, err)
		}
		defer os.RemoveAll(storeHome)
	case f.sessionDir != "":
		storeHome = f.sessionDir
	}
	rt, err := actors.Start(actors.Options{Home: storeHome, Logger: log, Engine: eng.Session(), Command: "troupe --mode rpc", TransportMiddleware: transportFaults()})
	if err != nil {
		return fail(1, err)
	}
	local.Bind(rt)
	cwd := f.cwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	ctx, stop := actors.NotifyShutdown(context.Background(), log)
	defer stop()
	d, err := serveTransport(ctx, rt, rpc.Props(rpc.Config{
		In: stdin, Out: stdout, MaxLine: f.maxLine,
		Sessions: rt.Sessions, Models: eng.Models(),
		Thinking: f.models.thinking, Cwd: cwd,
		SessionID: f.session, NoSession: f.noSession, Partials: f.partials, Log: log,
	}), "rpc")
	return exitStatus(d, err, func(err error) { fmt.Fprintf(stderr, "troupe rpc: %v\n", err) })
}
