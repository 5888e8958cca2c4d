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

	"github.com/spf13/cobra"
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
func newAgentRunCmd(a *app, common *commonFlags) *cobra.Command {
	var f agentRunFlags
	c := &cobra.Command{
		Use:   "run [flags] PATH|NAME [ARGS...]",
		Short: "run an agent: flags before it, its own arguments after",
		Long: "Run an agent. Flags come before the agent; everything after it is the " +
			"agent's arguments, passed on as they are.\n\n" +
			"Exit status: 0 done; 1 the run failed; 2 bad flags or no such agent; " +
			"130 cancelled by a signal.",
		Args: wantArgs(1, -1, "PATH or NAME"),
		RunE: a.action(func(pos []string) int { return agentRunCmd(*common, f, pos, a.stdin, a.stdout, a.stderr) }),
	}
	c.Flags().SetInterspersed(false)
	c.Flags().BoolVar(&f.json, "json", false, "print the events and the result as NDJSON")
	c.Flags().StringVar(&f.cwd, "cwd", "", "the run's directory (default the current one)")
	c.Flags().DurationVar(&f.limit, "timeout", agent.DefaultLimit, "wall-clock limit of the run")
	return c
}

func agentRunCmd(common commonFlags, f agentRunFlags, pos []string, stdin io.Reader, stdout, stderr io.Writer) int {
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
	code := runAgentOnce(ctx, agent.Host{Home: rt.Home, Root: rt.System.Root, Servers: sup, Runs: rt.Spawner(actors.SpawnerAgentRuns)}, pos[0], pos[1:], f, stdin, stdout, stderr)
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
	res, err := agent.Run(ctx, host, opts)
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

// describeEvent is an event as a stderr line in the plain output: what
// happened in words (the --json output carries the events whole).
func describeEvent(e agent.Event) string {
	switch d := e.Data.(type) {
	case agent.ProgressEvent:
		return d.Message
	case agent.Log:
		return d.Message
	case agent.Status:
		switch d.Message {
		case "agent.run.start":
			return "agent " + d.Agent + " started"
		case "agent.run.finish":
			return "agent " + d.Agent + " finished"
		}
		return d.Message
	case agent.SetupEvent:
		return fmt.Sprintf("agent ready: %d %s", d.ToolCount, plural(d.ToolCount, "tool", "tools"))
	case agent.TurnEvent:
		return fmt.Sprintf("turn %d/%d", d.Turn+1, d.MaxTurns)
	case agent.ToolCallEvent:
		args, _ := json.Marshal(d.Args)
		return "→ " + d.Name + " " + clip(string(args), 120)
	case agent.ToolResultEvent:
		lines := strings.Split(strings.TrimRight(d.Result, "\n"), "\n")
		more := ""
		if len(lines) > 1 {
			more = fmt.Sprintf(" (+%d %s)", len(lines)-1, plural(len(lines)-1, "line", "lines"))
		}
		return fmt.Sprintf("← %s %s%s, %s", d.Name, clip(lines[0], 120), more, time.Duration(d.DurationMS)*time.Millisecond)
	case agent.CompleteEvent:
		return fmt.Sprintf("done after %d %s", d.Turns, plural(d.Turns, "turn", "turns"))
	}
	b, _ := json.Marshal(e.Data) // an event kind this renderer does not know yet
	return string(b)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
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
