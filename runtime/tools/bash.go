package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/troupehq/troupe/runtime/proc"
)

const (
	// DefaultBashTimeout applies when neither the call nor Bash sets one.
	DefaultBashTimeout = 120 * time.Second
	// MaxBashTimeout caps the per-call timeout; it also tames models that
	// send milliseconds where seconds are asked for.
	MaxBashTimeout = 30 * time.Minute

	// killGrace is how long the process group gets between SIGTERM and SIGKILL.
	killGrace = 2 * time.Second
	// pipeGrace bounds the wait for output after the shell exits, since a
	// background process (`server &`) may hold the pipe open indefinitely.
	pipeGrace = time.Second
	// progressInterval throttles progress callbacks.
	progressInterval = 50 * time.Millisecond
)

// Bash runs a shell command in the session's working directory.
type Bash struct {
	// DefaultTimeout replaces DefaultBashTimeout when positive.
	DefaultTimeout time.Duration
}

func (Bash) Name() string       { return "bash" }
func (Bash) Category() Category { return CategoryExec }

func (Bash) Description() string { return bashDescription }

// bashDescription is formatted once, not per request.
var bashDescription = fmt.Sprintf("Run a shell command with bash in the working directory. stdout and stderr are "+
	"returned interleaved, followed by the exit code. Output beyond the last %d lines or %d KB is "+
	"cut and saved to a file whose path is given. The command is killed after timeout seconds "+
	"(default %d). Stdin is empty: do not run interactive commands.",
	MaxOutputLines, MaxOutputBytes/1024, int(DefaultBashTimeout.Seconds()))

func (Bash) Parameters() json.RawMessage { return bashParameters }

// bashParameters is shared by every request that offers the tool: never modify it.
var bashParameters = json.RawMessage(`{
  "type": "object",
  "properties": {
    "command": {"type": "string", "description": "The shell command to run"},
    "timeout": {"type": "number", "description": "Timeout in seconds (default 120, maximum 1800)"}
  },
  "required": ["command"]
}`)

type bashArgs struct {
	Command string   `json:"command"`
	Timeout *float64 `json:"timeout"`
}

func (b Bash) Run(ctx context.Context, call Call, progress func(string)) (Result, error) {
	cwd, err := call.workdir()
	if err != nil {
		return Result{}, fmt.Errorf("bash: %w", err)
	}
	var args bashArgs
	if res, ok := decodeArgs("bash", call.Args, &args); !ok {
		return res, nil
	}
	if strings.TrimSpace(args.Command) == "" {
		return missingArg("bash", "command"), nil
	}
	timeout := DefaultBashTimeout
	if b.DefaultTimeout > 0 {
		timeout = b.DefaultTimeout
	}
	if args.Timeout != nil {
		if *args.Timeout <= 0 {
			return badArg("bash", "timeout", "must be a positive number of seconds"), nil
		}
		// Clamp before converting: a huge float overflows a Duration.
		secs := min(*args.Timeout, MaxBashTimeout.Seconds())
		timeout = time.Duration(secs * float64(time.Second))
	}
	if ctx.Err() != nil {
		return cancelledResult("bash"), nil
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return errorResult("bash: working directory " + cwd + " does not exist"), nil
	}
	shell, err := findShell()
	if err != nil {
		return Result{}, err
	}
	return runShell(ctx, shell, args.Command, cwd, call, timeout, progress)
}

// findShell prefers bash, which models assume, and falls back to sh.
var findShell = sync.OnceValues(func() (string, error) {
	for _, name := range []string{"bash", "sh"} {
		if path, err := exec.LookPath(name); err == nil {
			return path, nil
		}
	}
	return "", errors.New("bash: neither bash nor sh found in PATH")
})

// exitInfo is how a command ended.
type exitInfo struct {
	code      int
	state     string // e.g. "signal: killed"; used when code is -1
	timedOut  bool
	cancelled bool
	timeout   time.Duration
	pipeHeld  bool // background processes kept the output pipe open
}

func runShell(ctx context.Context, shell, command, cwd string, call Call,
	timeout time.Duration, progress func(string)) (Result, error) {
	sink := &outputSink{spillDir: call.SpillDir}
	// Its own process group, no terminal (a credential prompt fails instead
	// of hanging until the timeout), and death with troupe: see runtime/proc.
	cmd := proc.Command(shell, "-c", command)
	// Whatever happens below, the call is over when this returns: what the
	// command left running in the background is no longer troupe's to kill.
	defer cmd.Release()
	cmd.Dir = cwd
	cmd.Marker = call.Marker
	cmd.Stdout = sink // the same writer for both: one pipe, output interleaved
	cmd.Stderr = sink
	cmd.WaitDelay = pipeGrace
	if err := cmd.Start(); err != nil {
		return Result{}, fmt.Errorf("bash: start %s: %w", shell, err)
	}
	if call.OnStart != nil {
		call.OnStart(cmd.Proof())
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	stopProgress := streamProgress(sink, progress)

	info := exitInfo{timeout: timeout}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var waitErr error
	select {
	case waitErr = <-waited:
	case <-ctx.Done():
		info.cancelled = true
		cmd.Terminate(killGrace)
		waitErr = <-waited
	case <-timer.C:
		info.timedOut = true
		cmd.Terminate(killGrace)
		waitErr = <-waited
	}
	stopProgress()

	info.pipeHeld = errors.Is(waitErr, exec.ErrWaitDelay)
	info.code = -1
	if cmd.ProcessState != nil {
		info.code = cmd.ProcessState.ExitCode()
		info.state = cmd.ProcessState.String()
	}
	return bashResult(sink.finish(), info), nil
}

// streamProgress calls progress with the cumulative output at most every
// progressInterval, and once more with the final output when stopped.
func streamProgress(sink *outputSink, progress func(string)) (stop func()) {
	if progress == nil {
		return func() {}
	}
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		ticker := time.NewTicker(progressInterval)
		defer ticker.Stop()
		for {
			select {
			case <-done:
				return
			case <-ticker.C:
				if text, ok := sink.takeChanged(); ok {
					progress(text)
				}
			}
		}
	}()
	return func() {
		close(done)
		<-exited
		if text, ok := sink.takeChanged(); ok {
			progress(text)
		}
	}
}
