package rest

import (
	"context"

	"github.com/troupehq/troupe/persistence/event"
)

// conversation calls fn with every event of session id's conversation in
// order: a fork's inherited history, then its own log. It 404s through
// sessionError like any read.
func (a *API) conversation(ctx context.Context, id string, fn func(event.Event) error) error {
	m, err := a.cfg.Sessions.Meta(ctx, id)
	if err != nil {
		return err
	}
	inherited, err := a.cfg.Sessions.Inherited(ctx, m)
	if err != nil {
		return err
	}
	for _, e := range inherited {
		if err := fn(e); err != nil {
			return err
		}
	}
	return a.cfg.Sessions.Load(ctx, id, 1, fn)
}
