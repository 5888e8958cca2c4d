package rpc

import (
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/projection"
)

// carried are the settings a new or forked session starts with: the
// current model and modes, not the title.
func carried(set event.Settings) event.Settings {
	set.Title = nil
	return set
}

func (c *conn) newSession(cmd Command) {
	s := c.newSess("", false)
	s.created.Settings, s.created.Cwd = carried(c.cur.fold.Settings), c.cur.fold.Cwd
	r := &result{switchTo: s, resp: OK(cmd.ID, cmd.Type, map[string]bool{"cancelled": false})}
	done := c.begin()
	if cmd.ParentSession == "" {
		done(r)
		return
	}
	// A parent that is not a session of this store is only a breadcrumb
	// the protocol allows; it is not recorded.
	id := sessionIDOf(cmd.ParentSession)
	c.async().Meta(id, func(_ sessions.Meta, err error) {
		if err == nil {
			s.created.ParentSessionID = id
		}
		done(r)
	})
}

// switchCmd switches to a session of the store, or to a new one importing
// a pi session file.
func (c *conn) switchCmd(cmd Command) {
	path, cwd, store := cmd.SessionPath, c.cur.fold.Cwd, c.cfg.Sessions.StorePath()
	done := c.begin()
	fail := func(msg string) { done(&result{resp: Fail(cmd.ID, cmd.Type, msg)}) }
	to := func(id string) {
		done(&result{switchTo: c.newSess(id, true), resp: OK(cmd.ID, cmd.Type, map[string]bool{"cancelled": false})})
	}
	// One of this store's own session files: its session, not a copy.
	if id := c.ownSessionFile(path); id != "" {
		c.async().Meta(id, func(_ sessions.Meta, err error) {
			switch {
			case err != nil && sessions.KindOf(err) == sessions.KindNotFound:
				fail("Session not found: " + path)
			case err != nil:
				fail(err.Error())
			default:
				to(id)
			}
		})
		return
	}
	offload(c, func() sessionFile { return readImport(path, cwd, store) }, func(f sessionFile) {
		switch {
		case f.err != nil:
			fail(f.err.Error())
		case f.isFile:
			c.importFile(f, func(id string, err error) {
				if err != nil {
					fail(err.Error())
					return
				}
				to(id)
			})
		default:
			id := sessionIDOf(path)
			c.async().Meta(id, func(_ sessions.Meta, err error) {
				switch {
				case err != nil && sessions.KindOf(err) == sessions.KindNotFound:
					fail("Session not found: " + path)
				case err != nil:
					fail(err.Error())
				default:
					to(id)
				}
			})
		}
	})
}

// fork starts a new session holding the path up to the chosen user
// message's parent, and returns the message's text for re-editing.
func (c *conn) fork(cmd Command) {
	f := c.cur.fold
	var fp *projection.ForkPoint
	for i := range f.Forks {
		if f.Forks[i].EntryID == cmd.EntryID {
			fp = &f.Forks[i]
		}
	}
	if fp == nil {
		c.respond(Fail(cmd.ID, cmd.Type, "Invalid entry ID for forking"))
		return
	}
	point := *fp
	req := sessions.ForkRequest{
		Parent: point.SessionID, Seq: point.Seq, Entry: point.EntryID,
		Session: event.CreatedPayload{Cwd: f.Cwd, Settings: carried(f.Settings), OriginTransport: "rpc"},
	}
	done := c.begin()
	c.async().Fork(req, func(id string, err error) {
		if err != nil {
			done(&result{resp: Fail(cmd.ID, cmd.Type, err.Error())})
			return
		}
		done(&result{switchTo: c.newSess(id, true), resp: OK(cmd.ID, cmd.Type, map[string]any{"text": point.Text, "cancelled": false})})
	})
}
