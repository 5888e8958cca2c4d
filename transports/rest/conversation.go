package rest

import (
	"context"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
)

// conversation calls fn with every event of session id's conversation in
// order: a fork's inherited history, then its own log. It 404s through
// sessionError like any read.
func (a *API) conversation(ctx context.Context, id string, fn func(event.Event) error) error {
	return conversation(ctx, a.cfg.Sessions, id, fn)
}

func conversation(ctx context.Context, s *sessions.Client, id string, fn func(event.Event) error) error {
	m, err := s.Meta(ctx, id)
	if err != nil {
		return err
	}
	inherited, err := s.Inherited(ctx, m)
	if err != nil {
		return err
	}
	for _, e := range inherited {
		if err := fn(e); err != nil {
			return err
		}
	}
	return s.Load(ctx, id, 1, fn)
}

// shownConversation is conversation for the views that show the updates:
// a fork's inherited deltas included, and fn given the response chain's
// decisions on them all, read before the first event.
func shownConversation(ctx context.Context, s *sessions.Client, gate Gate, id string, fn func(*decisions, event.Event) error) error {
	m, err := s.Meta(ctx, id)
	if err != nil {
		return err
	}
	inherited, err := s.InheritedShown(ctx, m)
	if err != nil {
		return err
	}
	d, err := readDecisions(ctx, s, gate, id, inherited)
	if err != nil {
		return err
	}
	for _, e := range inherited {
		if err := fn(d, e); err != nil {
			return err
		}
	}
	return s.Load(ctx, id, 1, func(e event.Event) error { return fn(d, e) })
}
