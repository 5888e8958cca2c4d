package sessions

import (
	"time"

	"github.com/troupehq/troupe/actors/sessions/internal/run"
	"github.com/troupehq/troupe/actors/sessions/internal/session"
	"github.com/troupehq/troupe/actors/sessions/internal/upstream"
	"github.com/troupehq/troupe/persistence/event"
)

// What the process assembling sessions needs of their insides, said here
// so that the session, its queue and its run stay behind internal/.
type (
	// Engine runs prompts in every session (see engine.New).
	Engine = session.Engine
	// SessionConfig is every session's configuration; Config.Session.
	SessionConfig = session.Config
	// RunModel is the provider and model a run resolved.
	RunModel = run.Model
	// Retry is a run's provider-retry policy.
	Retry = run.Retry
	// AgentSession is one session an external agent says it remembers
	// (its session/list), which REST's agent sync records.
	AgentSession = upstream.Remembered
)

// DefaultIdleTimeout is how long an idle session stays in memory when
// SessionConfig.IdleTimeout is 0.
const DefaultIdleTimeout = session.DefaultIdleTimeout

// SealImport checks an imported log and closes what was in flight in it
// (see ImportRequest); the importer's fuzz test calls it directly.
func SealImport(id string, log []event.Event, now time.Time) (session.Sealed, error) {
	return session.SealImport(id, log, now)
}
