package rpc

import (
	"context"
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
		p, err := c.cfg.Sessions.RunBash(ctx, cwd, cmd.Bash)
		if err != nil {
			return fail(err)
		}
		bg := context.Background()
		if err := c.ready(bg, s); err != nil {
			return fail(err)
		}
		seq, err := c.cfg.Sessions.RecordBash(bg, s.id, p)
		if err != nil {
			return fail(err)
		}
		data := map[string]any{"output": p.Output, "exitCode": p.ExitCode, "cancelled": p.Cancelled, "truncated": p.Truncated}
		if p.FullOutputPath != "" {
			data["fullOutputPath"] = p.FullOutputPath
		}
		return &result{bashDone: true, resp: OK(cmd.ID, cmd.Type, data), session: s.id, seq: seq}
	})
}
