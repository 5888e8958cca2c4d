package acp

import (
	"context"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/transports/overrides"
)

// overridesLoaded carries the response chain's decisions a session's log
// holds, read before its history is projected, so that a replay shows
// what live clients were shown without looking ahead.
type overridesLoaded struct {
	a   *attachment
	m   overrides.Map
	err error
}

// loadOverrides reads them off the mailbox; leave cancels the read.
func (a *attachment) loadOverrides(c *conn, ctx actor.Context) {
	lctx, cancel := context.WithCancel(context.Background())
	a.loading, a.stopLoad = true, cancel
	root, self, store, id := ctx.ActorSystem().Root, ctx.Self(), c.cfg.Sessions, a.id
	go func() {
		m, err := readOverrides(lctx, store, id)
		if lctx.Err() == nil {
			root.Send(self, &overridesLoaded{a: a, m: m, err: err})
		}
	}()
}

func readOverrides(ctx context.Context, store *sessions.Client, id string) (overrides.Map, error) {
	return overrides.Read(ctx, store, id)
}

func (c *conn) onOverrides(ctx actor.Context, m *overridesLoaded) {
	a := m.a
	if c.att[a.id] != a || !a.loading {
		return
	}
	a.stopLoad()
	a.loading, a.stopLoad = false, nil
	if m.err != nil {
		// The history is shown as recorded rather than not at all.
		c.log(ctx).Warn("reading the session's transformed updates failed", "session", a.id, "error", m.err)
	}
	a.mergeOverrides(m.m)
	if a.replayTo >= 0 {
		a.begin(c, ctx)
	}
}

func (a *attachment) mergeOverrides(m overrides.Map) {
	if len(m) == 0 {
		return
	}
	if a.overrides == nil {
		a.overrides = make(overrides.Map, len(m))
	}
	for seq, d := range m {
		a.overrides[seq] = d
	}
}
