package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions/engine"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/datahome"
	"github.com/troupehq/troupe/transports/hugind"
	"github.com/troupehq/troupe/transports/mcp"
	"github.com/troupehq/troupe/transports/stdio"
)

func init() {
	register(command{
		name: "mcp", args: "[flags]",
		summary: "be an MCP server on stdin/stdout: session, config, model and llama-server tools",
		run:     runMCP,
	})
}

type mcpFlags struct {
	common   commonFlags
	models   modelFlags
	approval string
	cwd      string
	maxLine  int
}

func runMCP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f mcpFlags
	fs := newFlagSet("mcp", stderr)
	f.common.register(fs)
	f.models.register(fs)
	enumVar(fs, &f.approval, "approval-mode", event.ApprovalDefault, approvalModes, "approval mode of new sessions; calls needing approval are denied (MCP cannot ask)")
	fs.StringVar(&f.cwd, "cwd", "", "directory of sessions created without one (default: current)")
	fs.IntVar(&f.maxLine, "max-line", stdio.DefaultMaxLine, "largest accepted message in bytes")
	pos, err := parse(fs, args)
	if err != nil {
		return exitCode(err)
	}
	fail := func(code int, err error) int {
		fmt.Fprintf(stderr, "troupe mcp: %v\n", err)
		return code
	}
	if len(pos) > 0 {
		return fail(2, fmt.Errorf("unexpected argument %q", pos[0]))
	}
	log, err := f.common.logger()
	if err != nil {
		return fail(2, err)
	}
	home, err := datahome.Resolve(f.common.home, log)
	if err != nil {
		return fail(1, err)
	}
	eng, err := engine.New(engine.Options{
		Home: home, Thinking: f.models.thinking, Mode: f.approval, DenyUnapproved: true, MaxSteps: f.models.maxTurns,
		AutoRetry: !f.models.noRetry, Selection: f.models.selection(),
	})
	if err != nil {
		return fail(2, err)
	}
	cwd := f.cwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	rt, err := actors.Start(actors.Options{Home: home, Logger: log, Engine: eng.Session(), Command: "troupe mcp"})
	if err != nil {
		return fail(1, err)
	}
	sup, err := rt.StartLongLivedServers(eng)
	if err != nil {
		return fail(1, errors.Join(err, shutdown(rt)))
	}
	settings, err := eng.DefaultSettings()
	if err != nil {
		settings.Provider, settings.Model = nil, nil
	}
	srv := mcp.New(mcp.Config{
		Sessions: rt.Sessions, Models: eng.Models(), Settings: settings, DefaultCwd: cwd, Transport: "stdio",
		Version: currentVersion(), Log: log,
		Bridge: &hugind.Bridge{Home: rt.Home, Root: rt.System.Root, Servers: sup, Log: log},
	})
	ctx, stop := actors.NotifyShutdown(context.Background(), log)
	defer stop()
	err = srv.ServeStdio(ctx, stdin, stdout, f.maxLine)
	srv.Close()
	code := 0
	if ctx.Err() != nil {
		code = 130
	}
	if err = errors.Join(err, shutdown(rt)); err != nil {
		return fail(1, err)
	}
	return code
}
