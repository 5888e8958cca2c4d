package hydraverbs

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/transports/acp/pipeline"
)

// prefix starts every slash command the daemon answers.
const prefix = "/hydra "

// Config is what the built-ins act through.
type Config struct {
	Sessions *sessions.Client
	Models   sessions.Models // nil: no catalog (config lists the mode alone)
	// Regen asks session id's model for a new title in the background;
	// nil when the daemon has no model to write titles.
	Regen func(ctx context.Context, id string) error
	// Extensions lists the verbs the connected extensions and transformers
	// registered (pipeline.Pipeline.Commands).
	Extensions func() []pipeline.RegisteredCommand
	// Closing tells the extensions' commands in flight in session id that
	// the session is going away (pipeline.Pipeline.SessionClosing).
	Closing func(id string)
	// AgentKnown says whether the daemon's catalogue names an agent id
	// (nil: none but troupe's own).
	AgentKnown func(id string) bool
	// Swapped tells session id's transformers of an agent switch
	// (lifecycle agent.swap); nil tells no one.
	Swapped func(id string, payload map[string]any)
	Log     *slog.Logger
}

// Verbs answers the built-in verbs. Close ends the work it waits on.
type Verbs struct {
	cfg    Config
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New serves the built-ins through cfg.
func New(cfg Config) *Verbs {
	ctx, cancel := context.WithCancel(context.Background())
	return &Verbs{cfg: cfg, ctx: ctx, cancel: cancel}
}

// Close abandons what waits for a command's run to end, and waits for it.
func (v *Verbs) Close() {
	v.cancel()
	v.wg.Wait()
}

// Run answers text when it is a built-in verb, or names no verb anyone
// serves; handled is false for an extension's `/hydra <name> …`, which
// the pipeline runs. The reply is the text the run shows ("" for none).
// A nil Verbs (not serving yet) handles nothing.
func (v *Verbs) Run(ctx context.Context, session, text string) (reply string, handled bool) {
	if v == nil || !strings.HasPrefix(text, prefix) {
		return "", false
	}
	word, args := split(strings.TrimPrefix(text, prefix))
	b := find(word)
	if b == nil {
		if v.extension(word) {
			return "", false
		}
		return v.unknown(word), true
	}
	return b.run(v, ctx, session, args), true
}

// split is a command's first word and the rest, trimmed.
func split(s string) (string, string) {
	s = strings.TrimSpace(s)
	word, rest, _ := strings.Cut(s, " ")
	return word, strings.TrimSpace(rest)
}

// extension reports a first word an extension or transformer serves: its
// name, or by hydra's convention its name without "hydra-acp-".
func (v *Verbs) extension(word string) bool {
	if v.cfg.Extensions == nil || word == "" {
		return false
	}
	return slices.ContainsFunc(v.cfg.Extensions(), func(c pipeline.RegisteredCommand) bool {
		return c.Name == word || c.Name == "hydra-acp-"+word
	})
}

// unknown names the verbs there are, as hydra does for one it lacks.
func (v *Verbs) unknown(word string) string {
	known := make([]string, 0, len(builtins))
	for _, b := range builtins {
		known = append(known, b.verb)
	}
	if v.cfg.Extensions != nil {
		for _, c := range v.cfg.Extensions() {
			if !slices.Contains(known, c.Name) {
				known = append(known, c.Name)
			}
		}
	}
	if word == "" {
		return "usage: /hydra <verb> [args]; verbs: " + strings.Join(known, ", ") + " (/hydra help says what each does)"
	}
	return "/hydra " + word + ": no such verb; the verbs are " + strings.Join(known, ", ") + " (/hydra help says what each does)"
}
