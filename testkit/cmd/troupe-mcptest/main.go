// Command troupe-mcptest is a small MCP server over stdio, for tests of the
// MCP client side (actors/session/mcp). stdout carries only MCP messages; anything
// else it has to say goes to stderr.
//
// Tools:
//
//	echo{text}    "echo:<text>"
//	add{a,b}      the sum as text, and {"sum":…} as structured content
//	fail{}        an isError result
//	sleep{ms}     waits ms milliseconds or until the call is cancelled
//	mixed{}       text, image, embedded resource and resource link content
//	env{name}     the value of an environment variable
//	cwd{}         the working directory
//	pid{}         the server's process id
//
// Usage:
//
//	troupe-mcptest [-calls DIR] [-page-size N]
//
// With -calls, every call creates DIR/<tool>-*.call before it runs, so a
// test can count executions, and a cancelled sleep creates
// DIR/cancelled-sleep-*.call. -page-size forces tools/list to paginate.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "troupe-mcptest:", err)
		os.Exit(1)
	}
}

// run serves MCP on stdin/stdout until the client closes stdin or ctx ends.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("troupe-mcptest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	calls := fs.String("calls", "", "directory that gets one marker file per tool call")
	pageSize := fs.Int("page-size", 0, "tools per tools/list page; 0 keeps the SDK default")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	err := newServer(options{callsDir: *calls, pageSize: *pageSize}).Run(ctx, &mcp.StdioTransport{})
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}
