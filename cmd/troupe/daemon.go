package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions/engine"
	"github.com/troupehq/troupe/runtime/datahome"
	"github.com/troupehq/troupe/runtime/logfile"
	"github.com/troupehq/troupe/runtime/logging"
	"github.com/troupehq/troupe/runtime/pidfile"
	"github.com/troupehq/troupe/transports/acp"
	"github.com/troupehq/troupe/transports/acp/pipeline"
	"github.com/troupehq/troupe/transports/daemon"
	"github.com/troupehq/troupe/transports/rest"
)

func init() {
	register(command{
		name: "daemon", args: "[start|stop|status|restart] [--listen ADDR]",
		summary: "serve sessions over HTTP: REST at /v1, ACP over WebSocket at /acp (hydra); start: in the background",
		run:     runDaemon,
	})
}

type daemonFlags struct {
	common          commonFlags
	models          modelFlags
	listen          string
	tlsCert, tlsKey string
	origins         string
	approval        string
	cwd             string
	logFile         string
	mcpRecall       bool
}

func (f *daemonFlags) register(fs *flag.FlagSet) {
	f.common.register(fs)
	f.models.register(fs)
	fs.StringVar(&f.listen, "listen", daemon.DefaultListen, "address to listen on; other than loopback needs TLS")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "TLS certificate (PEM)")
	fs.StringVar(&f.tlsKey, "tls-key", "", "TLS private key (PEM)")
	fs.StringVar(&f.origins, "allow-origin", "", "comma-separated browser origins let in besides the daemon's own")
	enumVar(fs, &f.approval, "approval-mode", "default", approvalModes, "approval mode of new sessions")
	fs.StringVar(&f.cwd, "cwd", "", "directory of sessions created without one (default: current)")
	fs.StringVar(&f.logFile, "log-file", "", "write logs, stdout and stderr to this file, rotated by size (daemon start uses $TROUPE_HOME/daemon.log)")
	fs.BoolVar(&f.mcpRecall, "mcp-recall", false, "offer every session created over /acp the hydra-acp-recall MCP server")
}

// runDaemon is `troupe daemon`: a verb (start, stop, status, restart)
// manages a background daemon; without one the daemon runs in the
// foreground.
func runDaemon(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "start":
			return runDaemonStart(args[1:], stdout, stderr)
		case "stop":
			return runDaemonStop(args[1:], stdout, stderr)
		case "status":
			return runDaemonStatus(args[1:], stdout, stderr)
		case "restart":
			return runDaemonRestart(args[1:], stdout, stderr)
		}
	}
	return runDaemonForeground(args, stderr)
}

// Rotation of --log-file.
const (
	daemonLogMax  = 10 << 20
	daemonLogKeep = 3
)

func runDaemonForeground(args []string, stderr io.Writer) int {
	var f daemonFlags
	fs := newFlagSet("daemon", stderr)
	f.register(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return exitCode(err)
	}
	fail := func(code int, err error) int {
		fmt.Fprintf(stderr, "troupe daemon: %v\n", err)
		return code
	}
	if len(pos) > 0 {
		return fail(2, fmt.Errorf("unexpected argument %q (verbs: start, stop, status, restart)", pos[0]))
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
	sessionEngine := withCommands(eng.Session(), pipe, func() *actor.ActorSystem { return rt.System })
	sessionEngine.MCPServers = agentMCP.rebase
	// A chained session's link starts whenever the session comes live,
	// whatever woke it (the chains are restored before anything can).
	live := func(id string, last int64) { pipe.Live(rt.System, rt.Sessions, id, last) }
	rt, err = actors.Start(actors.Options{Home: home, Logger: log, Engine: sessionEngine, Command: "troupe daemon", OnSessionLive: live})
	if err != nil {
		return fail(1, err)
	}
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
		Settings: settings, Titler: eng.Title, Clients: hub, Log: log, Extensions: plug.extensions, Transformers: plug.transformers,
		DefaultTransformers: plug.cfg.DefaultTransformers, MCPServers: pipe.MCPServersFor,
		Chain:   func() []string { return pipe.ResolveChain(nil) },
		Opened:  func(id string, chain []string) { pipe.Opened(rt.System, rt.Sessions, id, chain) },
		Closing: pipe.SessionClosing, Deleted: pipe.SessionGone, Gate: pipe})
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
		Listen: f.listen, Home: home, TLSCert: f.tlsCert, TLSKey: f.tlsKey, AllowedOrigins: origins, API: api,
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
