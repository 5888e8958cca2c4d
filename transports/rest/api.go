package rest

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/troupehq/troupe/actors/plugins"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/agentcatalog"
	"github.com/troupehq/troupe/transports/httpjson"
	"github.com/troupehq/troupe/transports/overrides"
)

// AgentID is the one agent troupe runs: its own engine, on each
// configured model.
const AgentID = "troupe"

// maxBody bounds a JSON request body; an import's bundle has its own bound.
const maxBody = 1 << 20

// Config is what the API serves from.
type Config struct {
	Sessions *sessions.Client
	// AgentKnown says whether the daemon's agent catalogue names an
	// external agent id a session may run on; nil knows none.
	AgentKnown func(id string) bool
	// Models lists the configured models; nil lists none.
	Models  sessions.Models
	Version string // troupe's
	// Home is the daemon's data home, and ConfigDigest the digest of its
	// Hydra config.json (runtime/hydraconfig): /v1/health names both,
	// since Hydra's clients talk only to a daemon whose home and digest
	// match their own.
	Home, ConfigDigest string
	// DefaultCwd is a new session's directory when the request names none.
	DefaultCwd string
	// Settings are a new session's before the request's own (the daemon's
	// flags: its default model among them), as ACP session/new records;
	// Defaults, when set, gives them as they are now (after a reload).
	Settings event.Settings
	Defaults func() event.Settings
	// Titler writes titles for PATCH {"regen": true}; nil refuses regen.
	Titler Titler
	// Clients says who is attached to a session over ACP (the ACP hub);
	// nil reports nobody.
	Clients Clients
	Log     *slog.Logger
	// Extensions and Transformers serve /v1/extensions and
	// /v1/transformers; nil leaves the routes absent (404).
	Extensions, Transformers *plugins.Client
	// DefaultTransformers is config.yml's, shown by GET /v1/config.
	DefaultTransformers []string
	// MCPServers, when set, adds to a new session's mcpServers (the
	// extensions' /mcp/<name>); Chain, when set, is a new session's
	// transformer chain, recorded in its session.created; Opened, when
	// set, learns a session was made with that chain.
	MCPServers func(id string, servers json.RawMessage) json.RawMessage
	Chain      func() []string
	Opened     func(id string, chain []string)
	// Closing, when set, learns a session is about to be stopped (kill,
	// delete, an import replacing it), so what that cuts is told
	// "abandoned"; Deleted that it is gone (an import with replace then
	// reuses its id).
	Closing, Deleted func(id string)
	// Agents is the agent catalogue (/v1/agents beside troupe's own agent,
	// install, the registry routes, /v1/config's defaultAgent); nil serves
	// troupe's agent alone and leaves install and the registry routes 404.
	Agents *agentcatalog.Catalog
	// AgentSessions, when set, starts a catalogue agent and answers the
	// sessions it remembers (its session/list): POST /v1/agents/:id/sync,
	// 404 without it.
	AgentSessions func(ctx context.Context, id string) ([]sessions.AgentSession, error)
	// Notify, when set, sends every ACP client a notification: an
	// install's hydra-acp/agents/install_progress.
	Notify func(method string, params any)
	// Gate, when set, says how far a session's response chain has decided
	// its agent updates (the ACP pipeline): a followed history waits for
	// it, as ACP clients do. Nil follows ungated.
	Gate Gate
}

// Gate is how far session id's clients may be shown its events: past
// Released the response chain has not decided yet (math.MaxInt64 when the
// session has no gate). Decided is its decision on the event at seq, when
// it still knows it (known false: read the log).
type Gate interface {
	Released(id string) int64
	Decided(id string, seq int64) (d overrides.Decision, decided, known bool)
}

// Clients is what the entries' attachedClients come from: the ACP hub
// the daemon's WebSocket handler shares.
type Clients interface {
	Attached(id string) int
}

// API is the /v1 handlers.
type API struct {
	cfg     Config
	started time.Time

	// ctx bounds background work (title regeneration); Close ends it.
	ctx    context.Context
	cancel context.CancelFunc
	bg     sync.WaitGroup
}

// New builds the API.
func New(cfg Config) *API {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &API{cfg: cfg, started: time.Now(), ctx: ctx, cancel: cancel}
}

// Close cancels the background work the API started and waits for it.
func (a *API) Close(ctx context.Context) error {
	a.cancel()
	done := make(chan struct{})
	go func() {
		a.bg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Register adds the API's routes to mux. Routes the protocol defines but
// troupe does not serve yet (stdin, /mcp/*; agent sync without AgentSessions; install and the
// registry without a catalogue) are not registered, so they answer 404;
// /mcp is the MCP server transports/daemon mounts.
func (a *API) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/health", a.health)
	mux.HandleFunc("GET /v1/config", a.config)
	mux.HandleFunc("GET /v1/agents", a.agents)
	if a.cfg.Agents != nil {
		mux.HandleFunc("POST /v1/agents/{id}/install", a.installAgent)
		mux.HandleFunc("GET /v1/registry", a.registry)
		mux.HandleFunc("POST /v1/registry/refresh", a.refreshRegistry)
	}
	if a.cfg.AgentSessions != nil {
		mux.HandleFunc("POST /v1/agents/{id}/sync", a.syncAgent)
	}
	mux.HandleFunc("GET /v1/sessions", a.list)
	mux.HandleFunc("POST /v1/sessions", a.create)
	mux.HandleFunc("GET /v1/sessions/events", a.mergedEvents)
	mux.HandleFunc("GET /v1/sessions/{id}", a.get)
	mux.HandleFunc("PATCH /v1/sessions/{id}", a.patch)
	mux.HandleFunc("DELETE /v1/sessions/{id}", a.delete)
	mux.HandleFunc("POST /v1/sessions/{id}/kill", a.kill)
	mux.HandleFunc("GET /v1/sessions/{id}/history", a.history)
	mux.HandleFunc("GET /v1/sessions/{id}/events", a.events)
	mux.HandleFunc("POST /v1/sessions/search", a.search)
	mux.HandleFunc("POST /v1/sessions/{id}/fork", a.fork)
	mux.HandleFunc("GET /v1/sessions/{id}/export", a.export)
	mux.HandleFunc("POST /v1/sessions/import", a.importBundle)
	mux.HandleFunc("GET /v1/sessions/{id}/transcript", a.transcript)
	mux.HandleFunc("GET /v1/sessions/{id}/diff", a.diff)
	mux.HandleFunc("GET /v1/sessions/{id}/attention", a.attention)
	mux.HandleFunc("GET /v1/sessions/attention", a.attentionBySource)
	mux.HandleFunc("POST /v1/sessions/{id}/attention/clear", a.attentionClear)
	mux.HandleFunc("POST /v1/sessions/collect", a.collect)
	mux.HandleFunc("GET /v1/sessions/{id}/compact/status", a.compactStatus)
	mux.HandleFunc("POST /v1/sessions/{id}/compact", a.compact)
	a.registerPlugins(mux, a.cfg.Extensions, "/v1/extensions")
	a.registerPlugins(mux, a.cfg.Transformers, "/v1/transformers")
}

// requestTimeout bounds one request to a session.
const requestTimeout = 30 * time.Second

// sessionError answers err from a request about session id.
func (a *API) sessionError(w http.ResponseWriter, id string, err error) {
	SessionError(w, a.cfg.Log, id, err)
}

// SessionError answers err from a request about session id with its
// kind's status from the facade's one table (sessions.KindOf): 404
// unknown, 409 hosted by another process or the parent of forks (on
// delete), 507 when the store's disk is full and 503 when the store's
// file refused the write otherwise (nothing was written; the request may
// succeed once an operator acts), and so on. A kind whose text is not the
// client's (an unnamed error, a failed session's reason) answers as
// Internal does: a ref to the daemon's log.
func SessionError(w http.ResponseWriter, log *slog.Logger, id string, err error) {
	kind := sessions.KindOf(err)
	wire := kind.Wire()
	switch {
	case wire.HTTPStatus == 0:
		// The client left; nobody reads the answer.
	case !wire.HTTPText:
		httpjson.Internal(w, log, err, "session", id, "errorKind", wire.Name)
	default:
		httpjson.Error(w, wire.HTTPStatus, sessionErrorText(log, kind, id, err))
	}
}

// sessionErrorText words a kind's error for the client; the store's
// failures are logged too, for the operator who must act.
func sessionErrorText(log *slog.Logger, kind sessions.Kind, id string, err error) string {
	if log == nil {
		log = slog.Default()
	}
	switch kind {
	case sessions.KindNotFound:
		return "session " + id + " not found"
	case sessions.KindHeld:
		var held *sessions.LeaseHeldError
		errors.As(err, &held)
		return held.Error()
	case sessions.KindHasForks:
		return "session " + id + " has forks: " + err.Error()
	case sessions.KindDiskFull:
		log.Error("request failed: the store's disk is full", "session", id, "error", err)
		return err.Error()
	case sessions.KindStoreWrite:
		log.Error("request failed: the store could not be written", "session", id, "error", err)
		return err.Error()
	}
	return "session " + id + ": " + err.Error()
}

// health is the protocol's status and version; troupe adds its pid and
// start time, so `troupe daemon status` and `stop` know which process
// answers (no auth: the daemon listens on loopback or behind TLS).
// HydraVersion is the hydra-acp release whose protocol and clients troupe
// serves. /v1/health's version says it: Hydra's TUI tells its user to
// restart (that is, replace) a daemon whose version differs from its own.
// troupe's own version is troupeVersion.
const HydraVersion = "0.1.161"

func (a *API) health(w http.ResponseWriter, r *http.Request) {
	h := map[string]any{"status": "ok", "version": HydraVersion, "troupeVersion": a.cfg.Version, "pid": os.Getpid(),
		"startedAt": a.started.UTC().Format(time.RFC3339Nano)}
	if a.cfg.Home != "" {
		h["home"] = a.cfg.Home
	}
	if a.cfg.ConfigDigest != "" {
		h["configDigest"] = a.cfg.ConfigDigest
	}
	// A clustered daemon names the cluster's members and what each hosts;
	// a member that does not answer counts -1.
	if st, ok, err := a.cfg.Sessions.ClusterStatus(r.Context()); ok {
		if err != nil {
			a.cfg.Log.Warn("cluster status", "error", err)
		}
		h["cluster"] = st
	}
	httpjson.WriteJSON(w, http.StatusOK, h)
}
