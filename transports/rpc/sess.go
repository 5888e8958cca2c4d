package rpc

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
)

// sess is the session the connection shows. A new one is created in the
// store only when a command first needs it, so starting the process and
// answering get_state touch no session at all.
type sess struct {
	id      string
	fold    *fold
	exists  bool
	created event.CreatedPayload // for a new one
	quietTo int64                // events up to here are history, folded without output
	resumed bool                 // the first live event was seen
	sub     *actor.PID
	ensure  *ensureOnce
}

type ensureOnce struct {
	once    sync.Once
	err     error
	lastSeq int64 // the session's last seq before it was subscribed
}

// history is the part of a session's conversation that lives in the logs
// of its fork ancestors, folded before its own events.
type history struct {
	session string
	events  []event.Event
	quietTo int64
}

func (c *conn) newSess(id string, exists bool) *sess {
	if id == "" {
		id = sessions.NewID()
	}
	s := &sess{id: id, exists: exists, ensure: &ensureOnce{}, fold: newFold(id, c.models)}
	s.created = event.CreatedPayload{Cwd: c.cfg.Cwd, OriginTransport: "rpc"}
	s.fold.Cwd = c.cfg.Cwd
	s.fold.partials = c.cfg.Partials
	s.fold.emit = c.write
	s.fold.behind = c.out.behind
	c.hooks(s.fold)
	return s
}

// ready makes sure s exists and is subscribed; it runs in goroutines, once
// per session.
func (c *conn) ready(ctx context.Context, s *sess) error {
	s.ensure.once.Do(func() { s.ensure.lastSeq, s.ensure.err = c.subscribe(ctx, s) })
	return s.ensure.err
}

func (c *conn) subscribe(ctx context.Context, s *sess) (int64, error) {
	if !s.exists {
		if err := c.cfg.Sessions.Create(ctx, s.id, s.created); err != nil && !errors.Is(err, sessions.ErrExists) {
			return 0, fmt.Errorf("create session %s: %w", s.id, err)
		}
	}
	meta, err := c.cfg.Sessions.Meta(ctx, s.id)
	if errors.Is(err, sessions.ErrNotFound) && s.exists {
		// --session names a session to start under that id.
		if err = c.cfg.Sessions.Create(ctx, s.id, s.created); err == nil || errors.Is(err, sessions.ErrExists) {
			meta, err = c.cfg.Sessions.Meta(ctx, s.id)
		}
	}
	if err != nil {
		return 0, fmt.Errorf("session %s: %w", s.id, err)
	}
	evs, err := c.cfg.Sessions.Inherited(ctx, meta)
	if err != nil {
		return 0, err
	}
	// Sent before subscribing, so it is folded before the session's own
	// events reach the connection.
	c.root.Send(c.self, &history{session: s.id, events: evs, quietTo: meta.LastSeq})
	sub, err := c.cfg.Sessions.Subscribe(ctx, s.id, 1, false, c.self)
	if err != nil {
		return 0, fmt.Errorf("subscribe to session %s: %w", s.id, err)
	}
	c.root.Send(c.self, &subscribed{session: s.id, sub: sub.Subscription})
	return meta.LastSeq, nil
}

func (c *conn) onHistory(m *history) {
	if c.cur == nil || c.cur.id != m.session {
		return
	}
	c.cur.quietTo = m.quietTo
	f := c.cur.fold
	emit := f.emit
	f.emit = nil
	for _, e := range m.events {
		f.Apply(e)
	}
	// Inherited settings and counters are the fork's starting point; its
	// own seqs start again at 1.
	f.inherited()
	f.emit = emit
}

func (c *conn) onSubscribed(m *subscribed) {
	if c.cur == nil || c.cur.id != m.session || c.finished {
		c.cfg.Sessions.Unsubscribe(m.session, m.sub)
		return
	}
	c.cur.sub = m.sub
}

// spawnEnsure subscribes to s in the background; answer, when set, is
// written once the fold has caught up with the session's history.
func (c *conn) spawnEnsure(s *sess, answer *Response) {
	c.spawn(func() *result {
		if err := c.ready(context.Background(), s); err != nil {
			if answer == nil {
				c.cfg.Log.Error("session not available", "session", s.id, "error", err)
				return nil
			}
			return &result{resp: Fail(answer.ID, answer.Command, err.Error())}
		}
		if answer == nil {
			return nil
		}
		return &result{resp: answer, session: s.id, seq: s.ensure.lastSeq}
	})
}

// switchSession makes r.switchTo the current session. A run in progress is
// aborted first and the switch waits for its end, as pi's does.
func (c *conn) switchSession(r *result) {
	if c.cur.fold.Run() != nil {
		c.parked = append(c.parked, r)
		id := c.cur.id
		c.spawn(func() *result {
			_, _ = c.cfg.Sessions.Cancel(context.Background(), id, "session switched")
			return nil
		})
		return
	}
	old := c.cur
	if old.sub != nil {
		c.cfg.Sessions.Unsubscribe(old.id, old.sub)
	}
	c.cur = r.switchTo
	c.awaitingRun = map[string]bool{}
	if c.cur.exists {
		c.spawnEnsure(c.cur, r.resp)
		return
	}
	c.respond(r.resp)
}
