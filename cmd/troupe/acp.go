package main

import (
	"context"
	"fmt"
	"io"

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions/engine"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/datahome"
	"github.com/troupehq/troupe/runtime/logging"
	"github.com/troupehq/troupe/transports/acp"
)

func init() {
	register(command{
		name: "acp", args: "[flags]",
		summary: "be an ACP agent on stdin/stdout (newline-delimited JSON-RPC), for editors that spawn one",
		run:     runACP,
	})
}

type acpFlags struct {
	common   commonFlags
	models   modelFlags
	approval string
	maxLine  int
}

func runACP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f acpFlags
	fs := newFlagSet("acp", stderr)
	f.common.register(fs)
	f.models.register(fs)
	enumVar(fs, &f.approval, "approval-mode", event.ApprovalDefault, approvalModes, "approval mode of new sessions; the client is asked for calls needing approval")
	fs.IntVar(&f.maxLine, "max-line", 0, "largest accepted message in bytes (default 16 MiB)")
	if _, err := parse(fs, args); err != nil {
		return exitCode(err)
	}
	fail := func(code int, err error) int {
		fmt.Fprintf(stderr, "troupe acp: %v\n", err)
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
	eng, err := engine.New(engine.Options{
		Home: home, Thinking: f.models.thinking, Mode: f.approval, MaxSteps: f.models.maxTurns,
		AutoRetry: !f.models.noRetry, Selection: f.models.selection(),
	})
	local := &actors.LazyServers{} // --provider llama: the home's llama-server configs
	if err == nil {
		eng.SetLocalServers(local)
		err = eng.Check()
	}
	if err != nil {
		return fail(2, err)
	}
	settings, err := eng.DefaultSettings()
	if err != nil {
		return fail(2, err)
	}
	rt, err := actors.Start(actors.Options{Home: home, Logger: log, Engine: eng.Session(), Command: "troupe acp", TransportMiddleware: transportFaults()})
	if err != nil {
		return fail(1, err)
	}
	local.Bind(rt)
	ctx, stop := actors.NotifyShutdown(context.Background(), log)
	defer stop()
	cfg := acp.Config{Sessions: rt.Sessions, Models: eng.Models(), Transport: "stdio", Version: currentVersion(), Settings: settings}
	d, err := serveTransport(ctx, rt, acp.Props(cfg, acp.StdioFraming(stdin, stdout, f.maxLine)), "acp")
	return exitStatus(d, err, func(err error) { fmt.Fprintf(stderr, "troupe acp: %v\n", err) })
}
