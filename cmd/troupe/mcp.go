package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/hugind"
	"github.com/troupehq/troupe/transports/mcp"
	"github.com/troupehq/troupe/transports/stdio"
)

func newMCPCmd(a *app) *cobra.Command {
	var f mcpFlags
	c := &cobra.Command{
		Use:   "mcp",
		Short: "an MCP server on stdin/stdout: session, model and server tools",
		Long: "Be an MCP server on stdin/stdout (one JSON-RPC message a line): session, " +
			"config, model and llama-server tools. Calls needing approval are denied " +
			"(MCP cannot ask). Closing stdin waits for the calls under way.",
		Args: noArgs,
		RunE: a.action(func([]string) int { return runMCP(f, a.stdin, a.stdout, a.stderr) }),
	}
	fs := c.Flags()
	f.common.register(fs)
	f.models.register(fs)
	enumVar(fs, &f.approval, "approval-mode", event.ApprovalDefault, approvalModes, "approval mode of new sessions; calls needing approval are denied (MCP cannot ask)")
	fs.StringVar(&f.cwd, "cwd", "", "directory of sessions created without one (default: current)")
	fs.IntVar(&f.maxLine, "max-line", stdio.DefaultMaxLine, "largest accepted message in bytes")
	return c
}

type mcpFlags struct {
	common   commonFlags
	models   modelFlags
	approval string
	cwd      string
	maxLine  int
}

func runMCP(f mcpFlags, stdin io.Reader, stdout, stderr io.Writer) int {
	fail := func(code int, err error) int {
		fmt.Fprintf(stderr, "troupe mcp: %v\n", err)
		return code
	}
	cwd := f.cwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	h, err := startHost(f.common, hostSetup{Command: "troupe mcp", LongLived: true, Engine: f.models.engine(f.approval, true)})
	if err != nil {
		return fail(exitCodeOf(err), err)
	}
	defer h.stop()
	rt, eng, log, sup, ctx := h.rt, h.eng, h.log, h.servers, h.ctx
	settings, err := eng.DefaultSettings()
	if err != nil {
		settings.Provider, settings.Model = nil, nil
	}
	srv := mcp.New(mcp.Config{
		Sessions: rt.Sessions, Models: eng.Models(), Settings: settings, DefaultCwd: cwd, Transport: "stdio",
		Version: currentVersion(), Log: log,
		Bridge: &hugind.Bridge{Home: rt.Home, Root: rt.System.Root, Servers: sup, AgentRuns: rt.Spawner(actors.SpawnerAgentRuns), Log: log},
	})
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
