package sessions

import (
	"github.com/troupehq/troupe/actors/sessions/internal/session"
)

// Route delivers Msg to session ID, starting the session if it is cold. The
// session answers the original sender; a route that cannot be delivered is
// answered with *RouteFailed.
type Route struct {
	ID  string
	Msg session.Request
}

// RouteFailed answers a Route the registry could not deliver.
type RouteFailed struct {
	Err error
}

// Live asks which sessions have an actor right now; the reply is *LiveSessions.
type Live struct{}

// LiveSessions answers Live.
type LiveSessions struct {
	IDs []string
}

// Kill stops session ID's actor (the session goes cold); the registry
// answers *Killed once it has stopped, or at once when it was not live.
type Kill struct{ ID string }

// Killed answers Kill.
type Killed struct{}
