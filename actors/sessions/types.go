package sessions

import (
	"github.com/troupehq/troupe/actors/sessions/internal/session"
	"github.com/troupehq/troupe/persistence"
)

// The session's own types a client sees, named here so that a client
// needs nothing but this package and the event schema.
type (
	// State is a session's folded state: settings, usage, the active run,
	// how many prompts wait, its last seq.
	State = session.State
	// Events is what a subscriber actor receives: consecutive events in
	// seq order. The slice is shared between subscribers; never modify it.
	Events = session.Events
	// Closed tells a subscriber actor that its subscription ended
	// (unsubscribed, or the session stopped).
	Closed = session.Closed
	// Meta is a session's snapshot in the store: title, cwd, status,
	// model, usage, fork breadcrumbs and last seq.
	Meta = persistence.SessionMeta
)
