package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/agent"
	"github.com/troupehq/troupe/actors/servers"
)

// agentRunCmd runs one agent. Flags come before the agent; everything
// after it is the agent's arguments, passed on as they are. Without
// --json, print() goes to stdout, eprint() and the other events to
// stderr, and an agentic run's final answer to stdout at the end; with
// --json every event is an NDJSON line {event, data} on stdout, and the
// last line is {ok, result} or {ok:false, error}. Exit status: 0 done, 1
// the run failed, 2 bad flags or no such agent, 130 cancelled by a signal.
func agentRunCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var common commonFlags
	fs := newFlagSet("agent run", stderr)
	common.register(fs)
	asJSON := fs.Bool("json", false, "print the events and the result as NDJSON")
	cwd := fs.String("cwd", "", "the run's directory (default the current one)")
	limit := fs.Duration("timeout", agent.DefaultLimit, "wall-clock limit of the run")
	if err := fs.Parse(args); err != nil {
		return exitCode(err)
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "troupe agent run: want PATH or NAME")
		return 2
	}
	log, err := common.logger()
	if err != nil {
		fmt.Fprintf(stderr, "troupe agent run: %v\n", err)
		return 2
	}
	rt, err := actors.Start(actors.Options{Home: common.home, Logger: log, Command: "troupe agent run"})
	if err != nil {
		fmt.Fprintf(stderr, "troupe agent run: %v\n", err)
		return 1
	}
	sup, err := rt.StartServers(servers.Options{})
	if err != nil {
		fmt.Fprintf(stderr, "troupe agent run: %v\n", errors.Join(err, shutdown(rt)))
		return 1
	}
	ctx, stop := actors.NotifyShutdown(context.Background(), log)
	defer stop()
	code := runAgentOnce(ctx, agent.Host{Home: rt.Home, Root: rt.System.Root, Servers: sup}, fs.Arg(0), fs.Args()[1:],
		agentRunFlags{json: *asJSON, cwd: *cwd, limit: *limit}, stdin, stdout, stderr)
	if err := shutdown(rt); err != nil {
		fmt.Fprintf(stderr, "troupe agent run: %v\n", err)
		return 1
	}
	return code
}

type agentRunFlags struct {
	json  bool
	cwd   string
	limit time.Duration
}

func runAgentOnce(ctx context.Context, host agent.Host, path string, args []string, f agentRunFlags, stdin io.Reader, stdout, stderr io.Writer) int {
	opts, err := host.Prepare(ctx, path, args, f.cwd)
	if err != nil {
		fmt.Fprintf(stderr, "troupe agent run: %v\n", err)
		return 2
	}
	opts.Limit = f.limit
	opts.Trace = agent.TraceEnabled()
	var mu sync.Mutex // Emit and the end both write stdout
	enc := json.NewEncoder(stdout)
	opts.Emit = func(e agent.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case e.Kind == agent.KindTrace:
			fmt.Fprintf(stderr, "[trace %s] %s\n", opts.Manifest.Name, e.Data)
		case f.json:
			_ = enc.Encode(agentEventLine{Event: e.Kind, Data: e.Data})
		case e.Kind == agent.KindLog && e.Data.(agent.Log).Stream == "":
			fmt.Fprintln(stdout, e.Data.(agent.Log).Message)
		default:
			fmt.Fprintln(stderr, describeEvent(e))
		}
	}
	if !f.json {
		in := bufio.NewReader(stdin)
		opts.Input = func(prompt string) string {
			fmt.Fprint(stderr, prompt)
			line, _ := in.ReadString('\n')
			return strings.TrimRight(line, "\r\n")
		}
	}
	res, err := agent.Run(ctx, host.Root, opts)
	mu.Lock()
	defer mu.Unlock()
	code := 0
	switch {
	case errors.Is(err, agent.ErrCancelled):
		code = 130
	case err != nil:
		code = 1
	}
	if f.json {
		if err != nil {
			_ = enc.Encode(agentEnd{Error: &agentError{Message: err.Error()}})
		} else {
			_ = enc.Encode(agentEnd{OK: true, Result: &res})
		}
		return code
	}
	if err != nil {
		fmt.Fprintf(stderr, "troupe agent run: %v\n", err)
		return code
	}
	if opts.Manifest.Mode != "script" {
		fmt.Fprintln(stdout, res.Result)
	}
	return code
}

// describeEvent is an event as a stderr line in the plain output.
func describeEvent(e agent.Event) string {
	switch d := e.Data.(type) {
	case agent.ProgressEvent:
		return d.Message
	case agent.Log:
		return d.Message
	case agent.Status:
		return d.Message
	}
	b, _ := json.Marshal(e.Data) // plain structs
	return string(b)
}

// agentEventLine is an event as a --json line.
type agentEventLine struct {
	Event string `json:"event"`
	Data  any    `json:"data"`
}

// agentEnd is the last --json line.
type agentEnd struct {
	OK     bool          `json:"ok"`
	Result *agent.Result `json:"result,omitempty"`
	Error  *agentError   `json:"error,omitempty"`
}

type agentError struct {
	Message string `json:"message"`
}
