package daemon

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions/cluster"
	"github.com/troupehq/troupe/actors/sessions/engine"
	"github.com/troupehq/troupe/runtime/datahome"
	"github.com/troupehq/troupe/runtime/hydraconfig"
	"github.com/troupehq/troupe/runtime/logging"
	"github.com/troupehq/troupe/runtime/metrics"
	"github.com/troupehq/troupe/runtime/pidfile"
	"github.com/troupehq/troupe/transports/acp"
	"github.com/troupehq/troupe/transports/acp/pipeline"
	"github.com/troupehq/troupe/transports/hydraverbs"
	"github.com/troupehq/troupe/transports/rest"
	"github.com/troupehq/troupe/transports/web"
)

// PIDFile in the home holds the running daemon's pid under a lock: one
// daemon per home.
const PIDFile = "daemon.pid"

// Config is what `troupe daemon`'s flags set.
type Config struct {
	// Home is the data home; "" resolves as datahome.Resolve does.
	Home string
	// Log receives the daemon's logs; nil logs at the default level to
	// stderr.
	Log *slog.Logger
	// Listen, TLSCert, TLSKey and AllowedOrigins are the server's (Options).
	Listen          string
	TLSCert, TLSKey string
	AllowedOrigins  []string
	// Engine is the model selection and the run loop's settings (its Mode
	// is the approval mode of new sessions); its Home is Config.Home.
	Engine engine.Options
	// DefaultCwd is the directory of sessions created without one; "" is
	// the process's working directory.
	DefaultCwd string
	// MCPRecall offers every session created over /acp the
	// hydra-acp-recall MCP server.
	MCPRecall bool
	// Version is what the daemon reports as its own.
	Version string
	// Args and Withheld are recorded in the pid file (pidfile.Info): the
	// flags the daemon was started with, no secret among them, and the
	// names of those left out.
	Args, Withheld []string
	// MetricsListen, when set, serves /metrics without authentication on
	// a listener of its own (a bare ":port" is loopback's); /metrics is
	// served behind the daemon's authentication either way.
	MetricsListen string
	// SessionMiddleware wraps every session's Receive (a troupe_faults
	// binary's injected failures; nil in a real one).
	SessionMiddleware []actor.ReceiverMiddleware
	// Store names a PostgreSQL store (postgres://…, no password in it:
	// PGPASSWORD or ~/.pgpass give that) shared by several daemons; ""
	// is the home's SQLite file.
	Store string
	// LeaseTTL is how long a session's lease outlives its holder's last
	// heartbeat (0: persistence.DefaultLeaseTTL): how soon another member
	// takes over the sessions of one that went silent.
	LeaseTTL time.Duration
	// Cluster, when its Name is set, makes the daemon a member of that
	// protoactor cluster: its front ends serve every member's sessions.
	Cluster cluster.Options
	// Signals makes the first SIGINT or SIGTERM close Done (and a second
	// exit the process): for a process that is the daemon, not for a test
	// that hosts several.
	Signals bool
}

// ErrConfig marks a Start error the configuration caused (a broken
// models.yml or config.yml, an address refused, a TLS pair that does not
// load), as against one of the machine (the store, a port taken).
var ErrConfig = errors.New("daemon configuration")

type configError struct{ err error }

func (e configError) Error() string   { return e.err.Error() }
func (e configError) Unwrap() []error { return []error{e.err, ErrConfig} }

// stopWait bounds a Shutdown whose context sets no deadline (that of a
// daemon whose start failed half-way, say), as the command bounds its own.
const stopWait = 30 * time.Second

// Daemon is a running daemon: the supervision tree, its HTTP server and
// what they share.
type Daemon struct {
	home  string
	token string
	rt    *actors.Runtime
	srv   *Server
	lock  *pidfile.Lock
	log   *slog.Logger

	done   chan struct{}
	err    error     // the server's failure; written before done closes
	signal os.Signal // the signal that asked it to stop; written before done closes
	stop   func()

	shutdown sync.Once
	shutErr  error

	reload  reloader
	metrics *metricsServer // --metrics-listen's, when set
}

// Start builds the whole daemon from cfg and serves: it takes the home's
// pid file, boots the runtime with the session engine, the llama-server
// supervisor, the plugin supervisors and the transformer pipeline, mounts
// REST, ACP, MCP and the agent-facing routes, writes the address file and
// answers. ctx ending asks the daemon to stop, as a signal does: Done is
// closed and the caller calls Shutdown.
func Start(ctx context.Context, cfg Config) (*Daemon, error) {
	log := cfg.Log
	if log == nil {
		var err error
		if log, err = logging.New(logging.Options{}); err != nil {
			return nil, err
		}
	}
	home, err := datahome.Resolve(cfg.Home, log)
	if err != nil {
		return nil, err
	}
	lock, err := pidfile.Acquire(filepath.Join(home, PIDFile))
	if held := (*pidfile.HeldError)(nil); errors.As(err, &held) {
		return nil, fmt.Errorf("a daemon (pid %d) already runs on %s; see `troupe daemon status`", held.PID, home)
	}
	if err != nil {
		return nil, err
	}
	d := &Daemon{home: home, lock: lock, log: log, done: make(chan struct{})}
	if err := d.assemble(ctx, cfg, log); err != nil {
		return nil, errors.Join(err, d.Shutdown(context.Background()))
	}
	return d, nil
}

// assemble boots the runtime and the server; a failure leaves what it
// started for Shutdown to stop.
func (d *Daemon) assemble(ctx context.Context, cfg Config, log *slog.Logger) error {
	opts := cfg.Engine
	opts.Home = d.home
	// One catalogue: the routes that list and install agents and the
	// sessions that start them see the same registry and installs.
	agents := loadAgents(d.home, log)
	opts.Agents = agents
	eng, err := engine.New(opts)
	if err != nil {
		return configError{err}
	}
	cwd := cfg.DefaultCwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	// Hydra's clients pointed at this home read its config.json: listen
	// where it says (unless told otherwise), and name its digest in
	// /v1/health, or they refuse this daemon.
	hydra, herr := hydraconfig.Read(d.home)
	if herr != nil {
		log.Warn("hydra config ignored: Hydra's clients will refuse this daemon until it is fixed", "error", herr)
	}
	listen := cfg.Listen
	if listen == "" && hydra.Present {
		listen = hydra.Listen()
	}
	digest := ""
	if herr == nil {
		digest = hydra.Digest()
	}
	agentMCP := newAgentMCP(d.home, cfg.MCPRecall)
	pipe := pipeline.New()
	pipe.Tokens = agentMCP.tokens // one key for every /mcp route, this run's
	var rt *actors.Runtime
	// hydra's built-in /hydra verbs, once the sessions and the API are up:
	// a session resumed as the runtime starts may run before.
	var verbs atomic.Pointer[hydraverbs.Verbs]
	sessionEngine := withCommands(eng.Session(), pipe, verbs.Load, func() *actor.ActorSystem { return rt.System })
	sessionEngine.MCPServers = agentMCP.rebase
	// A chained session's link starts whenever the session comes live,
	// whatever woke it (the chains are restored before anything can).
	live := func(id string, last int64) { pipe.Live(rt.System, rt.Sessions, id, last) }
	member := ""
	if cfg.Cluster.Name != "" && cfg.Store != "" {
		// Any member may host any session: each runs only where its
		// workspace is, and says so where it is not.
		member, _ = os.Hostname()
		member = cmp.Or(member, cfg.Cluster.Bind)
	}
	rt, err = actors.Start(actors.Options{Home: d.home, StoreURL: cfg.Store, LeaseTTL: cfg.LeaseTTL, Member: member, Logger: log, Engine: sessionEngine, Command: "troupe daemon", OnSessionLive: live,
		SessionMiddleware: cfg.SessionMiddleware})
	if err != nil {
		return err
	}
	d.rt = rt
	pipe.Links = rt.Spawner(actors.SpawnerChainLinks) // before any session can come live
	if cfg.Cluster.Name != "" {
		if err := joinCluster(rt, cfg.Cluster, cfg.Store != "", log); err != nil {
			return err
		}
	}
	sup, err := rt.StartLongLivedServers(eng)
	if err != nil {
		return err
	}
	// One hub for both sides: REST entries show who is attached over ACP.
	hub := acp.NewHub()
	plug, err := newDaemonPlugins(rt, d.home, pipe)
	if err != nil {
		return configError{err}
	}
	settings := newSessionSettings(eng)
	d.reload = reloader{home: d.home, eng: eng, plugins: plug.cfg, log: log}
	d.reload.settings.Store(&settings)
	api := rest.New(rest.Config{Sessions: rt.Sessions, AgentKnown: eng.AgentKnown, AgentSessions: eng.AgentSessions, Models: eng.Models(), Version: cfg.Version, DefaultCwd: cwd,
		Home: d.home, ConfigDigest: digest,
		Settings: settings, Defaults: d.reload.current, Titler: eng.Title, Clients: hub, Log: log, Extensions: plug.extensions, Transformers: plug.transformers,
		DefaultTransformers: plug.cfg.DefaultTransformers, MCPServers: pipe.MCPServersFor,
		Chain:   func() []string { return pipe.ResolveChain(nil) },
		Opened:  func(id string, chain []string) { pipe.Opened(rt.System, rt.Sessions, id, chain) },
		Closing: pipe.SessionClosing, Deleted: pipe.SessionGone, Gate: pipe,
		Agents: agents, Notify: func(method string, params any) { hub.Notify(rt.System.Root, method, params) }})
	builtins := hydraverbs.New(hydraverbs.Config{Sessions: rt.Sessions, Models: eng.Models(), Regen: api.Regen,
		Extensions: pipe.Commands, Closing: pipe.SessionClosing, Log: log, AgentKnown: eng.AgentKnown,
		Swapped: func(id string, payload map[string]any) { pipe.Lifecycle(rt.System.Root, id, "agent.swap", payload, "") }})
	verbs.Store(builtins)
	rt.OnShutdown(actors.StageInput, func(context.Context) error { builtins.Close(); return nil })
	acpHandler := acp.WebSocketHandler(acp.WebSocketConfig{
		Config: acp.Config{Sessions: rt.Sessions, AgentKnown: eng.AgentKnown, Models: eng.Models(), Version: cfg.Version, Settings: settings, Defaults: d.reload.current, Hub: hub,
			InjectMCP: agentMCP.inject(), Pipeline: plug.pipeline, Agents: agents},
		Peer: plug.peer,
		Start: func(props *actor.Props, name string) error {
			_, err := rt.StartTransport(props, name)
			return err
		},
		Log: log,
	})
	mcpServer := daemonMCP(rt, eng, sup, settings, cwd, cfg.Version, log)
	// /mcp is troupe's own MCP server; /mcp/hydra-acp-stdin and -recall the
	// agent-facing ones; any other /mcp/{name} an extension's.
	handlers := agentMCP.handlers(rt.Sessions, cfg.Version, log)
	handlers["/mcp/{name}"] = plug.pipeline.MCPHandler(rt.System)
	handlers["POST /v1/reload"] = d.reloadHandler()
	metricsHandler := metrics.Handler(metrics.NewRegistry(metrics.Sources{
		Sessions: sessionCounts(rt.Sessions), StorePath: rt.Sessions.StorePath(), Log: log}), log)
	handlers["GET /metrics"] = metricsHandler
	// Signals are ours before daemon.addr exists: a client that reads the
	// address may stop the daemon at once, and a SIGTERM that came before
	// the handler would kill it without the ordered shutdown.
	stopCtx, stop := context.WithCancel(ctx)
	if cfg.Signals {
		stopCtx, stop = actors.NotifyShutdown(ctx, log)
	}
	d.stop = stop
	srv, err := Listen(Options{
		Listen: listen, Home: d.home, TLSCert: cfg.TLSCert, TLSKey: cfg.TLSKey, AllowedOrigins: cfg.AllowedOrigins, API: api,
		ACP: acpHandler, MCP: mcpServer.HTTPHandler(), Web: web.Handler(), Log: log,
		Handlers: handlers,
	})
	if err != nil {
		return configError{err}
	}
	d.srv = srv
	if d.token, err = ServiceToken(d.home); err != nil {
		return err
	}
	// /mcp/* takes a session's capability token, checked from the
	// headers before the route is known.
	srv.Auth.Capability = func(tok string) bool { _, ok := agentMCP.tokens.Check(tok); return ok }
	rt.OnShutdown(actors.StageInput, func(context.Context) error { mcpServer.Close(); return nil })
	agentMCP.setBase(srv.URL())
	rt.OnShutdown(actors.StageInput, srv.Shutdown)
	if cfg.MetricsListen != "" {
		ms, err := listenMetrics(cfg.MetricsListen, metricsHandler, log)
		if err != nil {
			return configError{err}
		}
		d.metrics = ms
		rt.OnShutdown(actors.StageInput, ms.Shutdown)
	}
	rt.OnShutdown(actors.StageInput, agentMCP.close)
	if err := plug.start(rt, srv, log); err != nil {
		return err
	}
	rt.OnShutdown(actors.StageInput, api.Close)
	// Before the connections stop: an extension's command cut by the
	// shutdown is abandoned, and its connection is still there to hear it.
	rt.OnShutdown(actors.StageInput, func(context.Context) error { pipe.Abandon(rt.System.Root); return nil })
	srv.Serve()
	if err := d.lock.Describe(discovery(cmp.Or(listen, DefaultListen), srv.Addr(), cfg)); err != nil {
		log.Warn("Hydra's clients will not find this daemon", "error", err)
	}
	go d.watch(stopCtx)
	if cfg.Signals {
		go d.reloadOnHUP(stopCtx)
	}
	return nil
}

// watch closes done when the daemon is asked to stop or its server fails;
// it ends with the server, which Shutdown stops.
func (d *Daemon) watch(stop context.Context) {
	select {
	case <-stop.Done():
		d.signal = actors.ShutdownSignal(stop)
	case err := <-d.srv.Done():
		d.err = err
	}
	close(d.done)
}

// StopSignal is the signal that asked the daemon to stop once Done is
// closed (with Config.Signals), nil for any other reason.
func (d *Daemon) StopSignal() os.Signal {
	select {
	case <-d.done:
		return d.signal
	default:
		return nil
	}
}

// URL is where the daemon answers, e.g. http://127.0.0.1:55514.
func (d *Daemon) URL() string { return d.srv.URL() }

// MetricsURL is where --metrics-listen serves /metrics, "" without it.
func (d *Daemon) MetricsURL() string {
	if d.metrics == nil {
		return ""
	}
	return d.metrics.URL()
}

// Home is the daemon's data home, resolved.
func (d *Daemon) Home() string { return d.home }

// Token is the home's service token.
func (d *Daemon) Token() string { return d.token }

// Runtime is the daemon's supervision tree and store.
func (d *Daemon) Runtime() *actors.Runtime { return d.rt }

// Done is closed when the daemon is asked to stop (a signal with
// Config.Signals, Start's ctx ending) or its server fails (Err says how).
func (d *Daemon) Done() <-chan struct{} { return d.done }

// Err is why the server stopped on its own once Done is closed; nil when
// the daemon was asked to stop.
func (d *Daemon) Err() error {
	select {
	case <-d.done:
		return d.err
	default:
		return nil
	}
}

// Shutdown stops the daemon in the runtime's stage order (the server
// first, the store last), releases the signal handlers and the pid file.
// It is safe to call more than once; later calls return the first result.
func (d *Daemon) Shutdown(ctx context.Context) error {
	d.shutdown.Do(func() {
		var errs []error
		if d.rt != nil {
			if _, ok := ctx.Deadline(); !ok {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, stopWait)
				defer cancel()
			}
			errs = append(errs, d.rt.Shutdown(ctx))
		}
		if d.stop != nil {
			d.stop()
		}
		if err := d.lock.Release(); err != nil {
			d.log.Warn("release pid file", "error", err)
		}
		d.shutErr = errors.Join(errs...)
	})
	return d.shutErr
}

// discovery is the pid file's record of a daemon listening at addr, asked
// to bind listen: what Hydra's clients find a daemon by.
func discovery(listen string, addr net.Addr, cfg Config) pidfile.Info {
	host, _, _ := net.SplitHostPort(listen)
	port := 0
	if tcp, ok := addr.(*net.TCPAddr); ok {
		port = tcp.Port
	}
	return pidfile.Info{PID: os.Getpid(), Host: host, Port: port, LoopbackPort: port,
		StartedAt: time.Now().UTC().Format(time.RFC3339Nano), Args: cfg.Args, Withheld: cfg.Withheld}
}
