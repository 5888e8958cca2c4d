package agentjs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"time"

	"github.com/dop251/goja"
	"github.com/samber/lo"

	"github.com/troupehq/troupe/runtime/proc"
)

// commandGrace is how long a cancelled command gets after SIGTERM.
const commandGrace = 2 * time.Second

// installShell: run_command and runCommand (a command line, its output
// with stderr), spawn (a program and arguments, {code, stdout, stderr}).
// All return promises; the commands run in their own process group under
// runtime/proc, so they die with troupe, even by SIGKILL.
func (r *Runtime) installShell(vm *goja.Runtime) error {
	runCommand := func(line string) goja.Value {
		name, args, err := r.command(line)
		if err != nil {
			throw(vm, err)
		}
		return r.async(vm, func(ctx context.Context) (any, error) {
			res, err := r.exec(ctx, name, args)
			if err != nil {
				return nil, err
			}
			out := res.stdout + res.stderr
			if res.code != 0 {
				out += fmt.Sprintf("\n(exit status %d)", res.code)
			}
			return out, nil
		})
	}
	spawn := func(program string, args []string) goja.Value {
		if !slices.Contains(r.perms.commands, "*") && !slices.Contains(r.perms.commands, program) {
			_, _, err := r.command(program)
			throw(vm, err)
		}
		return r.async(vm, func(ctx context.Context) (any, error) {
			res, err := r.exec(ctx, program, args)
			if err != nil {
				return nil, err
			}
			return map[string]any{"code": res.code, "stdout": res.stdout, "stderr": res.stderr}, nil
		})
	}
	for name, fn := range map[string]any{"run_command": runCommand, "runCommand": runCommand, "spawn": spawn} {
		if err := vm.Set(name, fn); err != nil {
			return err
		}
	}
	return nil
}

type execResult struct {
	code           int
	stdout, stderr string
}

// exec runs one command in the run's directory; ctx's end terminates its
// group.
func (r *Runtime) exec(ctx context.Context, name string, args []string) (execResult, error) {
	cmd := proc.Command(name, args...)
	cmd.Dir = r.cwd()
	cmd.WaitDelay = commandGrace
	cmd.Env = append(os.Environ(), lo.MapToSlice(r.cfg.Env, func(k, v string) string { return k + "=" + v })...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return execResult{}, fmt.Errorf("run %s: %w", name, err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var err error
	select {
	case err = <-waited:
		cmd.Release()
	case <-ctx.Done():
		cmd.Terminate(commandGrace)
		<-waited
		return execResult{}, fmt.Errorf("run %s: %w", name, context.Cause(ctx))
	}
	res := execResult{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.code = exit.ExitCode()
	case err != nil:
		return execResult{}, fmt.Errorf("run %s: %w", name, err)
	}
	return res, nil
}
