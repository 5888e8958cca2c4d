// Command troupe-mcptest is a small MCP server over stdio, for tests of the
// MCP client side (actors/sessions/mcp). stdout carries only MCP messages; anything
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
//	progress{steps,ms}  sends steps notifications/progress ("step i"), ms apart
//	add_tool{name}      adds a tool name (answering "added:<name>"), so the
//	                    server sends notifications/tools/list_changed; it
//	                    answers once the client has listed the tools again
//	crash{}       exits with status 3 without answering
//
// Usage:
//
//	troupe-mcptest [-calls DIR] [-page-size N] [-pids DIR] [-crash-at N] [-refuse]
//
// With -calls, every call creates DIR/<tool>-*.call before it runs, so a
// test can count executions, and a cancelled sleep creates
// DIR/cancelled-sleep-*.call. -page-size forces tools/list to paginate.
// -pids writes DIR/<pid> at start, holding the start time in Unix
// nanoseconds, so a test can find (and kill) each process it was run as.
// -crash-at N makes the Nth tool call exit with status 3 without
// answering; -refuse exits with status 1 and a message on stderr at once,
// a server that never comes up.
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
	pids := fs.String("pids", "", "directory that gets one file per start, named by the pid")
	crashAt := fs.Int("crash-at", 0, "the tool call (1-based) that exits with status 3 instead of answering")
	refuse := fs.Bool("refuse", false, "exit with status 1 at once")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *refuse {
		return errors.New("refusing to start (-refuse)")
	}
	if err := writePID(*pids); err != nil {
		return err
	}
	err := newServer(options{callsDir: *calls, pageSize: *pageSize, crashAt: *crashAt}).Run(ctx, &mcp.StdioTransport{})
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}
