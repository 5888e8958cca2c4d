package rpc

import (
	"context"
	"errors"
	"os"

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
	set := carried(c.cur.fold.Settings)
	cwd := c.cur.fold.Cwd
	c.spawn(func() *result {
		s := c.newSess("", false)
		s.created.Settings, s.created.Cwd = set, cwd
		if cmd.ParentSession != "" {
			// A parent that is not a session of this store is only a
			// breadcrumb the protocol allows; it is not recorded.
			if id := sessionIDOf(cmd.ParentSession); c.known(id) {
				s.created.ParentSessionID = id
			}
		}
		return &result{switchTo: s, resp: OK(cmd.ID, cmd.Type, map[string]bool{"cancelled": false})}
	})
}

func (c *conn) known(id string) bool {
	_, err := c.cfg.Sessions.Meta(context.Background(), id)
	return err == nil
}

func (c *conn) switchCmd(cmd Command) {
	cwd := c.cur.fold.Cwd
	c.spawn(func() *result {
		ctx := context.Background()
		path := cmd.SessionPath
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && path != c.cfg.Sessions.StorePath() {
			id, err := c.importFile(ctx, path, cwd)
			if err != nil {
				return &result{resp: Fail(cmd.ID, cmd.Type, err.Error())}
			}
			return &result{switchTo: c.newSess(id, true), resp: OK(cmd.ID, cmd.Type, map[string]bool{"cancelled": false})}
		}
		id := sessionIDOf(path)
		if _, err := c.cfg.Sessions.Meta(ctx, id); err != nil {
			if errors.Is(err, sessions.ErrNotFound) {
				return &result{resp: Fail(cmd.ID, cmd.Type, "Session not found: "+path)}
			}
			return &result{resp: Fail(cmd.ID, cmd.Type, err.Error())}
		}
		return &result{switchTo: c.newSess(id, true), resp: OK(cmd.ID, cmd.Type, map[string]bool{"cancelled": false})}
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
	c.spawn(func() *result {
		id, err := c.cfg.Sessions.Fork(context.Background(), req)
		if err != nil {
			return &result{resp: Fail(cmd.ID, cmd.Type, err.Error())}
		}
		return &result{switchTo: c.newSess(id, true), resp: OK(cmd.ID, cmd.Type, map[string]any{"text": point.Text, "cancelled": false})}
	})
}
