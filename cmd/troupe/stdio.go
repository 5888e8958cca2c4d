package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/servers"
	"github.com/troupehq/troupe/transports/hugind"
	"github.com/troupehq/troupe/transports/stdio"
)

func init() {
	register(command{name: "stdio", args: "[--max-line N]", summary: "the hugind stdio bridge: configs, models and llama-servers over NDJSON", run: runStdio})
}

func runStdio(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var common commonFlags
	fs := newFlagSet("stdio", stderr)
	common.register(fs)
	maxLine := fs.Int("max-line", stdio.DefaultMaxLine, "largest accepted input line in bytes")
	pos, err := parse(fs, args)
	if err != nil {
		return exitCode(err)
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "troupe stdio: unexpected arguments %q\n", pos)
		return 2
	}
	log, err := common.logger()
	if err != nil {
		fmt.Fprintf(stderr, "troupe stdio: %v\n", err)
		return 2
	}
	rt, err := actors.Start(actors.Options{Home: common.home, Logger: log, Command: "troupe stdio"})
	if err != nil {
		fmt.Fprintf(stderr, "troupe stdio: %v\n", err)
		return 1
	}
	sup, err := rt.StartServers(servers.Options{Outlive: true})
	if err != nil {
		fmt.Fprintf(stderr, "troupe stdio: %v\n", errors.Join(err, shutdown(rt)))
		return 1
	}
	ctx, stop := actors.NotifyShutdown(context.Background(), log)
	defer stop()
	b := &hugind.Bridge{Home: rt.Home, Root: rt.System.Root, Servers: sup, Log: log, MaxLine: *maxLine, Trace: stderr}
	served := make(chan error, 1)
	// Serve returns at EOF once every request is answered; a signal ends
	// the command without waiting for stdin, which may never close.
	go func() { served <- b.Serve(ctx, stdin, stdout) }()
	code := 0
	select {
	case err = <-served:
	case <-ctx.Done():
		code = 130
	}
	if err = errors.Join(err, shutdown(rt)); err != nil {
		fmt.Fprintf(stderr, "troupe stdio: %v\n", err)
		return 1
	}
	return code
}
