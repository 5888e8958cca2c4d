package rpc

import (
	"errors"
	"fmt"

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
	ensure  ensure
}

// ensure is a session's way to being ready: created if need be,
// inherited history folded, subscribed. It happens once; commands that
// need it meanwhile wait in waiters.
type ensure struct {
	state   ensureState
	err     error
	lastSeq int64 // the session's last seq before it was subscribed
	waiters []func(error)
}

type ensureState int

const (
	ensureNone ensureState = iota
	ensuring
	ensured
)

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
	s := &sess{id: id, exists: exists, fold: newFold(id, c.models)}
	s.created = event.CreatedPayload{Cwd: c.cfg.Cwd, OriginTransport: "rpc"}
	s.fold.Cwd = c.cfg.Cwd
	s.fold.partials = c.cfg.Partials
	s.fold.emit = c.write
	s.fold.behind = c.out.behind
	c.hooks(s.fold)
	return s
}

// ready makes sure s exists and is subscribed, then calls then on the
// mailbox (at once when it already is).
func (c *conn) ready(s *sess, then func(error)) {
	e := &s.ensure
	switch e.state {
	case ensured:
		then(e.err)
		return
	case ensuring:
		e.waiters = append(e.waiters, then)
		return
	}
	e.state, e.waiters = ensuring, []func(error){then}
	c.subscribe(s, func(lastSeq int64, err error) {
		e.state, e.lastSeq, e.err = ensured, lastSeq, err
		waiters := e.waiters
		e.waiters = nil
		for _, w := range waiters {
			w(err)
		}
	})
}

// subscribe creates s if it is new (or named by --session and not yet in
// the store), folds what it inherits and subscribes to it; then gets the
// session's last seq before the subscription.
func (c *conn) subscribe(s *sess, then func(int64, error)) {
	a := c.async()
	if !s.exists {
		a.Create(s.id, s.created, func(err error) {
			if err != nil && !errors.Is(err, sessions.ErrExists) {
				then(0, fmt.Errorf("create session %s: %w", s.id, err))
				return
			}
			a.Meta(s.id, func(meta sessions.Meta, err error) { c.attach(s, meta, err, then) })
		})
		return
	}
	a.Meta(s.id, func(meta sessions.Meta, err error) {
		if !errors.Is(err, sessions.ErrNotFound) {
			c.attach(s, meta, err, then)
			return
		}
		// --session names a session to start under that id.
		a.Create(s.id, s.created, func(err error) {
			if err != nil && !errors.Is(err, sessions.ErrExists) {
				c.attach(s, meta, err, then)
				return
			}
			a.Meta(s.id, func(meta sessions.Meta, err error) { c.attach(s, meta, err, then) })
		})
	})
}

// attach folds what s inherits from its fork ancestors, then subscribes:
// inherited events come before the session's own.
func (c *conn) attach(s *sess, meta sessions.Meta, err error, then func(int64, error)) {
	if err != nil {
		then(0, fmt.Errorf("session %s: %w", s.id, err))
		return
	}
	a := c.async()
	a.Inherited(meta, func(evs []event.Event, err error) {
		if err != nil {
			then(0, err)
			return
		}
		c.onHistory(&history{session: s.id, events: evs, quietTo: meta.LastSeq})
		a.Subscribe(s.id, 1, false, func(sub sessions.Subscribed, err error) {
			if err != nil {
				then(0, fmt.Errorf("subscribe to session %s: %w", s.id, err))
				return
			}
			c.onSubscribed(s.id, sub.Subscription)
			then(meta.LastSeq, nil)
		})
	})
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

func (c *conn) onSubscribed(session string, sub *actor.PID) {
	if c.cur == nil || c.cur.id != session || c.finished {
		c.cfg.Sessions.Unsubscribe(session, sub)
		return
	}
	c.cur.sub = sub
}

// ensureBackground subscribes to s; answer, when set, is written once the
// fold has caught up with the session's history.
func (c *conn) ensureBackground(s *sess, answer *Response) {
	done := c.begin()
	c.ready(s, func(err error) {
		switch {
		case err != nil && answer == nil:
			c.cfg.Log.Error("session not available", "session", s.id, "error", err)
			done(nil)
		case err != nil:
			done(&result{resp: Fail(answer.ID, answer.Command, err.Error())})
		case answer == nil:
			done(nil)
		default:
			done(&result{resp: answer, session: s.id, seq: s.ensure.lastSeq})
		}
	})
}

// switchSession makes r.switchTo the current session. A run in progress is
// aborted first and the switch waits for its end, as pi's does.
func (c *conn) switchSession(r *result) {
	if c.cur.fold.Run() != nil {
		c.parked = append(c.parked, r)
		done := c.begin()
		c.async().Cancel(c.cur.id, "session switched", func(sessions.CancelResult, error) { done(nil) })
		return
	}
	old := c.cur
	if old.sub != nil {
		c.cfg.Sessions.Unsubscribe(old.id, old.sub)
	}
	c.cur = r.switchTo
	c.awaitingRun = map[string]bool{}
	if c.cur.exists {
		c.ensureBackground(c.cur, r.resp)
		return
	}
	c.respond(r.resp)
}
