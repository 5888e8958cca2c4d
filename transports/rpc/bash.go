package rpc

import (
	"cmp"
	"context"

	"github.com/troupehq/troupe/persistence/event"
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
	cwd := cmp.Or(s.fold.Cwd, c.cfg.Cwd)
	done := c.begin()
	fail := func(err error) { done(&result{bashDone: true, resp: Fail(cmd.ID, cmd.Type, err.Error())}) }
	c.async().RunBash(ctx, cwd, cmd.Bash, func(p event.BashExecutedPayload, err error) {
		cancel()
		if err != nil {
			fail(err)
			return
		}
		c.ready(s, func(err error) {
			if err != nil {
				fail(err)
				return
			}
			c.async().RecordBash(s.id, p, func(seq int64, err error) {
				if err != nil {
					fail(err)
					return
				}
				done(&result{bashDone: true, resp: OK(cmd.ID, cmd.Type, bashData(p)), session: s.id, seq: seq})
			})
		})
	})
}

func bashData(p event.BashExecutedPayload) map[string]any {
	data := map[string]any{"output": p.Output, "exitCode": p.ExitCode, "cancelled": p.Cancelled, "truncated": p.Truncated}
	if p.FullOutputPath != "" {
		data["fullOutputPath"] = p.FullOutputPath
	}
	return data
}
