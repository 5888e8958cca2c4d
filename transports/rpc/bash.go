package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/troupehq/troupe/actors/session"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/tools"
)

// bash runs a host's own shell command off the mailbox; its result is
// recorded for the model's next prompt and emits no event. abort_bash
// cancels it.
func (c *conn) bash(cmd Command) {
	if c.bashCancel != nil {
		c.respond(Fail(cmd.ID, cmd.Type, "A bash command is already running"))
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.bashCancel = cancel
	s := c.cur
	cwd := s.fold.Cwd
	if cwd == "" {
		cwd = c.cfg.Cwd
	}
	c.spawn(func() *result {
		defer cancel()
		fail := func(err error) *result {
			return &result{bashDone: true, resp: Fail(cmd.ID, cmd.Type, err.Error())}
		}
		args, _ := json.Marshal(map[string]any{"command": cmd.Bash, "timeout": tools.MaxBashTimeout.Seconds()})
		res, err := tools.Bash{}.Run(ctx, tools.Call{Cwd: cwd, Args: args, SpillDir: c.cfg.SpillDir}, nil)
		if err != nil {
			return fail(err)
		}
		p := bashPayload(cmd.Bash, res)
		bg := context.Background()
		if err := c.ready(bg, s); err != nil {
			return fail(err)
		}
		out, err := c.cfg.Sessions.Do(bg, s.id, &session.RecordBash{Bash: p})
		if err != nil {
			return fail(err)
		}
		a, ok := out.(*session.Appended)
		if !ok || a.Err != nil {
			if ok {
				err = a.Err
			} else {
				err = fmt.Errorf("unexpected reply %T to bash", out)
			}
			return fail(err)
		}
		data := map[string]any{"output": p.Output, "exitCode": p.ExitCode, "cancelled": p.Cancelled, "truncated": p.Truncated}
		if p.FullOutputPath != "" {
			data["fullOutputPath"] = p.FullOutputPath
		}
		return &result{bashDone: true, resp: OK(cmd.ID, cmd.Type, data), session: s.id, seq: a.LastSeq}
	})
}

func bashPayload(command string, res tools.Result) event.BashExecutedPayload {
	p := event.BashExecutedPayload{Command: command, Output: bashOutput(res.Output), FullOutputPath: res.FullOutputPath}
	if code, ok := res.Metadata[tools.MetaExitCode].(int); ok {
		p.ExitCode = code
	}
	p.Cancelled, _ = res.Metadata[tools.MetaCancelled].(bool)
	p.Truncated, _ = res.Metadata[tools.MetaTruncated].(bool)
	if p.Output == "(no output)" {
		p.Output = ""
	}
	return p
}

// bashOutput drops the bracketed notes the bash tool adds for a model
// (exit code, truncation); the protocol reports them as fields.
func bashOutput(s string) string {
	i := strings.LastIndex(s, "\n\n[")
	for i >= 0 {
		notes := strings.Split(s[i+2:], "\n")
		all := true
		for _, n := range notes {
			if !strings.HasPrefix(n, "[") || !strings.HasSuffix(n, "]") {
				all = false
			}
		}
		if all {
			out := s[:i]
			if out != "" {
				out += "\n"
			}
			return out
		}
		i = strings.LastIndex(s[:i], "\n\n[")
	}
	return s
}
