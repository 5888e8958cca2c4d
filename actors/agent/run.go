package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/troupehq/troupe/actors/spawner"
	"github.com/troupehq/troupe/runtime/agentpkg"
	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/runtime/skills"
)

// DefaultLimit is a run's wall-clock limit when Options.Limit is zero.
const DefaultLimit = 10 * time.Minute

// Options is one run.
type Options struct {
	Dir      string // the package's folder
	Manifest agentpkg.Manifest
	// Args are the run's arguments; joined by spaces they are the user
	// prompt (--goal 'text' arrives as "--goal", "text": "--goal text").
	Args []string
	// Cwd is the run's directory: fs, commands, relative permission paths.
	Cwd       string
	Provider  llm.Provider
	Model     string
	SessionID string // sent as X-Session-ID; empty: none
	Skills    skills.Catalog
	Limit     time.Duration
	// Emit receives the run's events in order, on a goroutine of the
	// run's own; it may block.
	Emit func(Event)
	// Trace adds the trace events (TROUPE_TRACE=1).
	Trace bool
	// Input answers the script's input(); nil answers "".
	Input func(prompt string) string
}

// Result is how a run ended.
type Result struct {
	Status string `json:"status"` // "ok"
	Result string `json:"result"` // the final answer, or what a script printed
	Turns  int    `json:"turns,omitempty"`
}

// ErrCancelled is a run cancelled by its caller.
var ErrCancelled = errors.New("agent run cancelled")

// done carries the run's end from the actor's worker to Run.
type done struct {
	res Result
	err error
}

// Run runs one agent to its end as an actor under host.Runs, emitting
// status agent.run.start first and agent.run.finish last. ctx's end
// cancels it (ErrCancelled); the limit interrupts it with an error.
func Run(ctx context.Context, host Host, opts Options) (Result, error) {
	if opts.Limit <= 0 {
		opts.Limit = DefaultLimit
	}
	out := newOutbox(opts.Emit)
	out.push(Event{Kind: KindStatus, Data: Status{Message: "agent.run.start", Agent: opts.Manifest.Name}})
	end := make(chan done, 1)
	root := host.Root
	pid, err := spawner.Spawn(root, host.Runs, props(opts, out, end), "")
	if err != nil {
		out.push(Event{Kind: KindStatus, Data: Status{Message: "agent.run.finish", Agent: opts.Manifest.Name}})
		out.close()
		return Result{}, fmt.Errorf("start agent run: %w", err)
	}
	var d done
	select {
	case d = <-end:
	case <-ctx.Done():
		root.Send(pid, &Cancel{})
		d = <-end
	}
	out.push(Event{Kind: KindStatus, Data: Status{Message: "agent.run.finish", Agent: opts.Manifest.Name}})
	out.close()
	return d.res, d.err
}

// prompt is the user prompt from the run's arguments.
func prompt(args []string) string {
	p := strings.TrimSpace(strings.Join(args, " "))
	if p == "" {
		return "Begin."
	}
	return p
}

// Cancel stops a run: the VM is interrupted, the model call aborted.
type Cancel struct{ Reason string }

type timeUp struct{ limit time.Duration }

func (t timeUp) Error() string {
	return fmt.Sprintf("agent run exceeded its time limit of %s", t.limit)
}

// TraceEnabled reports whether TROUPE_TRACE=1 or HUGIND_TRACE=1 asks for
// the trace on stderr.
func TraceEnabled() bool {
	return os.Getenv("TROUPE_TRACE") == "1" || os.Getenv("HUGIND_TRACE") == "1"
}
