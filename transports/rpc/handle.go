package rpc

import (
	"errors"
	"strings"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
)

const errStreaming = "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."

func (c *conn) handleLine(line []byte) {
	cmd, bad := Decode(line)
	if bad != nil {
		c.respond(bad)
		return
	}
	if c.term {
		c.respond(Fail(cmd.ID, cmd.Type, "shutting down"))
		return
	}
	switch cmd.Type {
	case "prompt", "steer", "follow_up":
		c.prompt(cmd)
	case "abort":
		c.abort(cmd)
	case "new_session":
		c.newSession(cmd)
	case "switch_session":
		c.switchCmd(cmd)
	case "fork":
		c.fork(cmd)
	case "set_model", "cycle_model":
		c.setModel(cmd)
	case "set_thinking_level", "cycle_thinking_level":
		c.setThinking(cmd)
	case "set_steering_mode":
		c.settings(cmd, event.Settings{SteeringMode: &cmd.Mode}, nil)
	case "set_follow_up_mode":
		c.settings(cmd, event.Settings{FollowUpMode: &cmd.Mode}, nil)
	case "set_auto_compaction":
		c.settings(cmd, event.Settings{AutoCompaction: &cmd.Enabled}, nil)
	case "set_auto_retry":
		c.settings(cmd, event.Settings{AutoRetry: &cmd.Enabled}, nil)
	case "set_session_name":
		if cmd.Name == "" {
			c.respond(Fail(cmd.ID, cmd.Type, "Session name cannot be empty"))
			return
		}
		c.settings(cmd, event.Settings{Title: &cmd.Name}, nil)
	case "compact":
		c.compact(cmd)
	case "abort_retry":
		c.abortRetry(cmd)
	case "bash":
		c.bash(cmd)
	case "abort_bash":
		if c.bashCancel != nil {
			c.bashCancel()
		}
		c.respond(OK(cmd.ID, cmd.Type, nil))
	case "export_html":
		c.exportHTML(cmd)
	default:
		c.respond(c.answer(cmd))
	}
}

// prompt expands the message (expand.go), then queues it. The files are
// read off the mailbox; while a message is being expanded the prompts
// after it wait behind it, so they reach the session in the order sent.
func (c *conn) prompt(cmd Command) {
	if len(c.expanding) == 0 && !strings.HasPrefix(cmd.Message, "/") {
		c.queuePrompt(cmd)
		return
	}
	c.expanding = append(c.expanding, cmd)
	if len(c.expanding) == 1 {
		c.expandNext()
	}
}

// expandNext expands the first waiting message and queues it, then the
// next.
func (c *conn) expandNext() {
	cmd := c.expanding[0]
	dirs := expandDirs{cwd: c.cur.fold.Cwd, home: c.cfg.Home, noTemplates: c.cfg.NoPromptTemplates, noSkills: c.cfg.NoSkills}
	if dirs.cwd == "" {
		dirs.cwd = c.cfg.Cwd
	}
	done := c.begin()
	offload(c, func() string { return expandInput(cmd.Message, dirs) }, func(text string) {
		done(nil)
		cmd.Message = text
		c.expanding = c.expanding[1:]
		c.queuePrompt(cmd)
		if len(c.expanding) > 0 {
			c.expandNext()
		}
	})
}

// queuePrompt sends the message to the session as prompt, steer or
// follow-up.
func (c *conn) queuePrompt(cmd Command) {
	delivery := event.DeliveryPrompt
	switch {
	case cmd.Type == "steer":
		delivery = event.DeliverySteer
	case cmd.Type == "follow_up":
		delivery = event.DeliveryFollowUp
	case c.streaming() && cmd.StreamingBehavior == "":
		c.respond(Fail(cmd.ID, cmd.Type, errStreaming))
		return
	case c.streaming() && cmd.StreamingBehavior == "steer":
		delivery = event.DeliverySteer
	case c.streaming():
		delivery = event.DeliveryFollowUp
	}
	id := c.newID()
	c.prompts[id] = &result{resp: OK(cmd.ID, cmd.Type, nil)}
	c.awaitingRun[id] = true
	s := c.cur
	req := sessions.PromptRequest{MessageID: id, Content: blocks(cmd.Message, cmd.Images), Delivery: delivery, Client: "rpc"}
	done := c.begin()
	fail := func(err error) {
		done(&result{promptID: id, failed: true, resp: Fail(cmd.ID, cmd.Type, err.Error())})
	}
	c.ready(s, func(err error) {
		if err != nil {
			fail(err)
			return
		}
		c.async().Prompt(s.id, req, func(_ sessions.PromptResult, err error) {
			if err != nil {
				fail(err)
				return
			}
			done(&result{promptID: id})
		})
	})
}

// abort answers after the run has settled; queued messages survive it.
func (c *conn) abort(cmd Command) {
	s := c.cur
	if c.bashCancel != nil {
		c.bashCancel()
	}
	ok := OK(cmd.ID, cmd.Type, nil)
	// A manual compaction holds the session's turn too: abort stops it
	// (pi's abort does not, issue #8920).
	if !c.streaming() && s.fold.Compaction == nil {
		c.respond(ok)
		return
	}
	done := c.begin()
	c.async().Cancel(s.id, "aborted", func(r sessions.CancelResult, err error) {
		switch {
		case err != nil:
			done(&result{resp: Fail(cmd.ID, cmd.Type, err.Error())})
		case !r.Running:
			done(&result{resp: ok})
		default:
			done(&result{resp: ok, waitRun: r.RunID})
		}
	})
}

// settings records a settings change; the answer waits for its event.
func (c *conn) settings(cmd Command, set event.Settings, data any) {
	s := c.cur
	done := c.begin()
	c.ready(s, func(err error) {
		if err != nil {
			done(&result{resp: Fail(cmd.ID, cmd.Type, err.Error())})
			return
		}
		c.async().SetSettings(s.id, set, func(seq int64, err error) {
			if err != nil {
				done(&result{resp: Fail(cmd.ID, cmd.Type, err.Error())})
				return
			}
			done(&result{resp: OK(cmd.ID, cmd.Type, data), session: s.id, seq: seq})
		})
	})
}

func (c *conn) setModel(cmd Command) {
	f := c.cur.fold
	provider, id := cmd.Provider, cmd.ModelID
	if cmd.Type == "cycle_model" {
		p, m := c.models.current(f.Settings)
		next, ok := c.models.next(p, m)
		if !ok {
			c.respond(OK(cmd.ID, cmd.Type, JSONNull))
			return
		}
		provider, id = next.Provider, next.ID
	} else if _, err := c.models.find(provider, id); err != nil {
		c.respond(Fail(cmd.ID, cmd.Type, err.Error()))
		return
	}
	obj, err := c.models.object(provider, id)
	if err != nil {
		c.respond(Fail(cmd.ID, cmd.Type, err.Error()))
		return
	}
	var data any = obj
	if cmd.Type == "cycle_model" {
		set := f.Settings
		set.Provider, set.Model = &provider, &id
		level := c.models.thinking(set, c.cfg.Thinking)
		data = map[string]any{"model": obj, "thinkingLevel": level, "isScoped": false}
	}
	c.settings(cmd, event.Settings{Provider: &provider, Model: &id}, data)
}

func (c *conn) setThinking(cmd Command) {
	f := c.cur.fold
	level := c.models.thinking(f.Settings, c.cfg.Thinking)
	p, id := c.models.current(f.Settings)
	var data any
	if cmd.Type == "cycle_thinking_level" {
		next, ok := c.models.cat.NextThinking(p, id, level)
		if !ok {
			c.respond(OK(cmd.ID, cmd.Type, JSONNull))
			return
		}
		level = next
		data = map[string]any{"level": level}
	} else {
		level = c.models.cat.ClampThinking(p, id, cmd.Level)
	}
	c.settings(cmd, event.Settings{ThinkingLevel: &level}, data)
}

func (c *conn) compact(cmd Command) {
	s := c.cur
	done := c.begin()
	fail := func(msg string) { done(&result{resp: Fail(cmd.ID, cmd.Type, msg)}) }
	c.ready(s, func(err error) {
		if err != nil {
			fail(err.Error())
			return
		}
		a := c.async()
		a.Compact(s.id, cmd.Instructions, func(r sessions.CompactResult, err error) {
			var unreachable *sessions.UnreachableError
			switch {
			case err == nil:
			case errors.As(err, &unreachable):
				fail(err.Error())
				return
			case sessions.KindOf(err) == sessions.KindBusy:
				fail("Cannot compact while the agent is processing")
				return
			default:
				fail("Compaction failed: " + err.Error())
				return
			}
			a.State(s.id, func(st sessions.State, err error) {
				if err != nil {
					fail(err.Error())
					return
				}
				done(&result{resp: OK(cmd.ID, cmd.Type, compactResult(r.Summary, r.FirstKeptEntryID, int64(r.TokensBefore))), session: s.id, seq: st.LastSeq})
			})
		})
	})
}

func (c *conn) abortRetry(cmd Command) {
	s := c.cur
	if s.fold.Run() == nil {
		c.respond(OK(cmd.ID, cmd.Type, nil))
		return
	}
	done := c.begin()
	// No retry pending is not an error: the retry the host saw may
	// already have ended.
	c.async().AbortRetry(s.id, func(error) { done(&result{resp: OK(cmd.ID, cmd.Type, nil)}) })
}
