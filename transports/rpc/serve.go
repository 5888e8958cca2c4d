package rpc

import (
	"io"
	"log/slog"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/transports"
)

// Config is what one connection needs.
type Config struct {
	In      io.Reader // closed as the connection stops, if it is a Closer
	Out     io.Writer
	MaxLine int // 0: stdio.DefaultMaxLine

	Sessions *sessions.Client
	// Models is the engine's catalog; it answers get_available_models,
	// set_model and the Model objects. Nil knows no models.
	Models   sessions.Models
	Thinking string // the default thinking level
	Cwd      string
	// SessionID continues that session; empty starts a new one, created in
	// the store when first needed.
	SessionID string
	// NoSession: the store is thrown away at exit, so no sessionFile is
	// reported.
	NoSession bool
	// SessionFileDir is where each session's pi session file is kept
	// (sessionfile.go); empty: none is written or reported.
	SessionFileDir string
	// Partials is what message_update carries; the zero value is the
	// spec's full partial message.
	Partials Partials
	// Home is troupe's data home: its prompts/ and skills/ are the
	// user's prompt templates and skills (expand.go), after the
	// project's .pi/prompts and .pi/skills. NoPromptTemplates and
	// NoSkills (pi's --no-prompt-templates, --no-skills) leave the
	// messages as typed.
	Home                        string
	NoPromptTemplates, NoSkills bool
	Log                         *slog.Logger
}

// ExitTerminated is the status after SIGTERM, as pi exits.
const ExitTerminated = 143

// Props builds the connection actor, a transport to start under the
// transports supervisor (runtime.StartTransport). It reports
// transports.Done with 0 once stdin has ended and everything owed is
// written, and with ExitTerminated after transports.Terminate (the first
// SIGTERM: the running work is aborted and its end written). Its stdout
// writer is its child.
func Props(cfg Config) *actor.Props {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return actor.PropsFromProducer(func() actor.Actor { return newConn(cfg) },
		actor.WithSupervisor(transports.Escalate))
}
