package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/servers"
	"github.com/troupehq/troupe/transports/hugind"
	"github.com/troupehq/troupe/transports/stdio"
)

func newStdioCmd(a *app) *cobra.Command {
	var common commonFlags
	var maxLine int
	c := &cobra.Command{
		Use:   "stdio",
		Short: "the hugind bridge: configs, models and llama-servers over NDJSON",
		Args:  noArgs,
		RunE:  a.action(func([]string) int { return runStdio(common, maxLine, a.stdin, a.stdout, a.stderr) }),
	}
	common.register(c.Flags())
	c.Flags().IntVar(&maxLine, "max-line", stdio.DefaultMaxLine, "largest accepted input line in bytes")
	return c
}

func runStdio(common commonFlags, maxLine int, stdin io.Reader, stdout, stderr io.Writer) int {
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
	b := &hugind.Bridge{Home: rt.Home, Root: rt.System.Root, Servers: sup, AgentRuns: rt.Spawner(actors.SpawnerAgentRuns), Log: log, MaxLine: maxLine, Trace: stderr}
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
