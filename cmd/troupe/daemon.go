package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions/engine"
	"github.com/troupehq/troupe/runtime/datahome"
	"github.com/troupehq/troupe/runtime/hydraconfig"
	"github.com/troupehq/troupe/runtime/logfile"
	"github.com/troupehq/troupe/runtime/logging"
	"github.com/troupehq/troupe/runtime/pidfile"
	"github.com/troupehq/troupe/transports/acp"
	"github.com/troupehq/troupe/transports/acp/pipeline"
	"github.com/troupehq/troupe/transports/daemon"
	"github.com/troupehq/troupe/transports/hydraverbs"
	"github.com/troupehq/troupe/transports/rest"
)

// daemonFlags are the daemon's own: `troupe daemon`'s, and those `daemon
// start` and `restart` pass on to the background daemon. The common flags
// are the subtree's (newDaemonCmd).
type daemonFlags struct {
	common          *commonFlags
	models          modelFlags
	listen          string
	tlsCert, tlsKey string
	origins         string
	approval        string
	cwd             string
	logFile         string
	mcpRecall       bool
}

func (f *daemonFlags) register(fs *pflag.FlagSet) {
	f.models.register(fs)
	fs.StringVar(&f.listen, "listen", "", "address to listen on; other than loopback needs TLS (default: config.json's daemon.host:port, else "+daemon.DefaultListen+")")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "TLS certificate (PEM)")
	fs.StringVar(&f.tlsKey, "tls-key", "", "TLS private key (PEM)")
	fs.StringVar(&f.origins, "allow-origin", "", "comma-separated browser origins let in besides the daemon's own")
	enumVar(fs, &f.approval, "approval-mode", "default", approvalModes, "approval mode of new sessions")
	fs.StringVar(&f.cwd, "cwd", "", "directory of sessions created without one (default: current)")
	fs.StringVar(&f.logFile, "log-file", "", "write logs, stdout and stderr to this file, rotated by size (daemon start uses $TROUPE_HOME/daemon.log)")
	fs.BoolVar(&f.mcpRecall, "mcp-recall", false, "offer every session created over /acp the hydra-acp-recall MCP server")
}

// newDaemonCmd is `troupe daemon`: a verb (start, stop, status, restart)
// manages a background daemon; without one the daemon runs in the
// foreground. The common flags are the whole subtree's.
func newDaemonCmd(a *app) *cobra.Command {
	common := &commonFlags{}
	f := daemonFlags{common: common}
	c := &cobra.Command{
		Use:   "daemon",
		Short: "serve sessions over HTTP (REST, ACP, MCP); start, stop, status",
		Long: "Serve sessions over HTTP: the hydra REST API at /v1, ACP over WebSocket at " +
			"/acp, MCP at /mcp. Without a command the daemon runs in the foreground; " +
			"start, stop, status and restart manage one in the background.",
		Args: func(c *cobra.Command, pos []string) error {
			if len(pos) > 0 {
				return unknownCommand(c, pos[0])
			}
			return nil
		},
		RunE: a.action(func([]string) int { return runDaemonForeground(f, a.stderr) }),
	}
	common.register(c.PersistentFlags())
	f.register(c.Flags())
	c.AddCommand(newDaemonStartCmd(a, common), newDaemonStopCmd(a, common), newDaemonStatusCmd(a, common), newDaemonRestartCmd(a, common))
	return c
}

// Rotation of --log-file.
const (
	daemonLogMax  = 10 << 20
	daemonLogKeep = 3
)

func runDaemonForeground(f daemonFlags, stderr io.Writer) int {
	fail := func(code int, err error) int {
		fmt.Fprintf(stderr, "troupe daemon: %v\n", err)
		return code
	}
	if f.logFile != "" {
		lf, err := logfile.Open(f.logFile, logfile.Options{MaxBytes: daemonLogMax, Keep: daemonLogKeep, Redirect: true})
		if err != nil {
			return fail(1, err)
		}
		defer lf.Close()
		stderr = lf
	}
	log, err := logging.New(logging.Options{Level: f.common.logLevel, Format: f.common.logFormat, Writer: stderr})
	if err != nil {
		return fail(2, err)
	}
	home, err := datahome.Resolve(f.common.home, log)
	if err != nil {
		return fail(1, err)
	}
	// Hydra's clients pointed at this home read its config.json: listen
	// where it says, and name its digest in /v1/health, or they refuse us.
	hydra, err := hydraconfig.Read(home)
	if err != nil {
		log.Warn("hydra config ignored: Hydra's clients will refuse this daemon until it is fixed", "error", err)
	}
	listen := f.listen
	if listen == "" && hydra.Present {
		listen = hydra.Listen()
	}
	listen = cmp.Or(listen, daemon.DefaultListen)
	digest := ""
	if err == nil {
		digest = hydra.Digest()
	}
	// Every connection costs a descriptor and the store needs its own:
	// take all the hard limit allows.
	if n, err := daemon.RaiseFileLimit(); err != nil {
		log.Warn("open-file limit", "error", err)
	} else {
		log.Debug("open-file limit", "limit", n)
	}
	// One daemon per home: the pid file's lock says which runs.
	pidLock, err := pidfile.Acquire(filepath.Join(home, daemonPIDFile))
	if held := (*pidfile.HeldError)(nil); errors.As(err, &held) {
		return fail(1, fmt.Errorf("a daemon (pid %d) already runs on %s; see `troupe daemon status`", held.PID, home))
	}
	if err != nil {
		return fail(1, err)
	}
	defer func() {
		if err := pidLock.Release(); err != nil {
			log.Warn("release pid file", "error", err)
		}
	}()
	eng, err := engine.New(engine.Options{
		Home: home, Thinking: f.models.thinking, Mode: f.approval, MaxSteps: f.models.maxTurns,
		AutoRetry: !f.models.noRetry, Selection: f.models.selection(),
	})
	if err != nil {
		return fail(2, err)
	}
	cwd := f.cwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	var origins []string
	if f.origins != "" {
		origins = strings.Split(f.origins, ",")
	}
	agentMCP := newAgentMCP(home, f.mcpRecall)
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
	rt, err = actors.Start(actors.Options{Home: home, Logger: log, Engine: sessionEngine, Command: "troupe daemon", OnSessionLive: live})
	if err != nil {
		return fail(1, err)
	}
	pipe.Links = rt.Spawner(actors.SpawnerChainLinks) // before any session can come live
	sup, err := startLongLivedServers(rt, eng, log)
	if err != nil {
		return fail(1, errors.Join(err, shutdown(rt)))
	}
	// One hub for both sides: REST entries show who is attached over ACP.
	hub := acp.NewHub()
	plug, err := newDaemonPlugins(rt, home, pipe)
	if err != nil {
		_ = shutdown(rt)
		return fail(2, err)
	}
	settings, err := acpSessionSettings(eng, f.models, f.approval)
	if err != nil {
		// Checked above: sessions are created without a model and their
		// prompts fail until one resolves.
		settings.Provider, settings.Model = nil, nil
	}
	api := rest.New(rest.Config{Sessions: rt.Sessions, Models: eng.Models(), Version: currentVersion(), DefaultCwd: cwd,
		Home: home, ConfigDigest: digest,
		Settings: settings, Titler: eng.Title, Clients: hub, Log: log, Extensions: plug.extensions, Transformers: plug.transformers,
		DefaultTransformers: plug.cfg.DefaultTransformers, MCPServers: pipe.MCPServersFor,
		Chain:   func() []string { return pipe.ResolveChain(nil) },
		Opened:  func(id string, chain []string) { pipe.Opened(rt.System, rt.Sessions, id, chain) },
		Closing: pipe.SessionClosing, Deleted: pipe.SessionGone, Gate: pipe})
	builtins := hydraverbs.New(hydraverbs.Config{Sessions: rt.Sessions, Models: eng.Models(), Regen: api.Regen,
		Extensions: pipe.Commands, Closing: pipe.SessionClosing, Log: log})
	verbs.Store(builtins)
	rt.OnShutdown(actors.StageInput, func(context.Context) error { builtins.Close(); return nil })
	acpHandler := acp.WebSocketHandler(acp.WebSocketConfig{
		Config: acp.Config{Sessions: rt.Sessions, Models: eng.Models(), Version: currentVersion(), Settings: settings, Hub: hub,
			InjectMCP: agentMCP.inject(), Pipeline: plug.pipeline},
		Peer: plug.peer,
		Start: func(props *actor.Props, name string) error {
			_, err := rt.StartTransport(props, name)
			return err
		},
		Log: log,
	})
	mcpServer := daemonMCP(rt, eng, sup, settings, cwd, log)
	// /mcp is troupe's own MCP server; /mcp/hydra-acp-stdin and -recall the
	// agent-facing ones; any other /mcp/{name} an extension's.
	handlers := agentMCP.handlers(rt.Sessions, currentVersion(), log)
	handlers["/mcp/{name}"] = plug.pipeline.MCPHandler(rt.System)
	// Signals are ours before daemon.addr exists: a client that reads the
	// address may stop the daemon at once, and a SIGTERM that came before
	// the handler would kill it without the ordered shutdown.
	ctx, stop := actors.NotifyShutdown(context.Background(), log)
	defer stop()
	srv, err := daemon.Listen(daemon.Options{
		Listen: listen, Home: home, TLSCert: f.tlsCert, TLSKey: f.tlsKey, AllowedOrigins: origins, API: api,
		ACP: acpHandler, MCP: mcpServer.HTTPHandler(), Log: log,
		Handlers: handlers,
	})
	if err != nil {
		_ = shutdown(rt)
		return fail(2, err)
	}
	// /mcp/* takes a session's capability token, checked from the
	// headers before the route is known.
	srv.Auth.Capability = func(tok string) bool { _, ok := agentMCP.tokens.Check(tok); return ok }
	rt.OnShutdown(actors.StageInput, func(context.Context) error { mcpServer.Close(); return nil })
	agentMCP.setBase(srv.URL())
	rt.OnShutdown(actors.StageInput, srv.Shutdown)
	rt.OnShutdown(actors.StageInput, agentMCP.close)
	if err := plug.start(rt, srv, log); err != nil {
		_ = shutdown(rt)
		return fail(1, err)
	}
	rt.OnShutdown(actors.StageInput, api.Close)
	// Before the connections stop: an extension's command cut by the
	// shutdown is abandoned, and its connection is still there to hear it.
	rt.OnShutdown(actors.StageInput, func(context.Context) error { pipe.Abandon(rt.System.Root); return nil })
	srv.Serve()
	if err := pidLock.Describe(discovery(listen, srv.Addr())); err != nil {
		log.Warn("Hydra's clients will not find this daemon", "error", err)
	}
	// One line on stderr whatever the log level: people and scripts look
	// for it; the address is also in $TROUPE_HOME/daemon.addr.
	fmt.Fprintf(stderr, "troupe daemon: listening on %s\n", srv.URL())
	code := 0
	select {
	case <-ctx.Done():
	case err := <-srv.Done():
		if err != nil {
			fmt.Fprintf(stderr, "troupe daemon: %v\n", err)
			code = 1
		}
	}
	if err := shutdown(rt); err != nil {
		fmt.Fprintf(stderr, "troupe daemon: %v\n", err)
		code = 1
	}
	return code
}

// discovery is the pid file's record of a daemon listening at addr, asked
// to bind listen: what Hydra's clients find a daemon by.
func discovery(listen string, addr net.Addr) pidfile.Info {
	host, _, _ := net.SplitHostPort(listen)
	port := 0
	if tcp, ok := addr.(*net.TCPAddr); ok {
		port = tcp.Port
	}
	return pidfile.Info{PID: os.Getpid(), Host: host, Port: port, LoopbackPort: port,
		StartedAt: time.Now().UTC().Format(time.RFC3339Nano)}
}
