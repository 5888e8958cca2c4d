package main

import (
	"context"
	"fmt"
	"github.com/asynkron/protoactor-go/actor"
	"io"
	"os"
	"strings"

	"github.com/troupehq/troupe/runtime/boot"
	"github.com/troupehq/troupe/runtime/boot/engine"
	"github.com/troupehq/troupe/transports/acp"
	"github.com/troupehq/troupe/transports/daemon"
	"github.com/troupehq/troupe/transports/rest"
)

func init() {
	register(command{
		name: "daemon", args: "[--listen ADDR] [--tls-cert F --tls-key F]",
		summary: "serve sessions over HTTP: the REST API at /v1 and ACP over WebSocket at /acp (hydra protocol)",
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
}

func runDaemon(args []string, _ io.Reader, _, stderr io.Writer) int {
	var f daemonFlags
	fs := newFlagSet("daemon", stderr)
	f.common.register(fs)
	f.models.register(fs)
	fs.StringVar(&f.listen, "listen", daemon.DefaultListen, "address to listen on; other than loopback needs TLS")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "TLS certificate (PEM)")
	fs.StringVar(&f.tlsKey, "tls-key", "", "TLS private key (PEM)")
	fs.StringVar(&f.origins, "allow-origin", "", "comma-separated browser origins let in besides the daemon's own")
	enumVar(fs, &f.approval, "approval-mode", "default", approvalModes, "approval mode of new sessions")
	fs.StringVar(&f.cwd, "cwd", "", "directory of sessions created without one (default: current)")
	pos, err := parse(fs, args)
	if err != nil {
		return exitCode(err)
	}
	fail := func(code int, err error) int {
		fmt.Fprintf(stderr, "troupe daemon: %v\n", err)
		return code
	}
	if len(pos) > 0 {
		return fail(2, fmt.Errorf("unexpected argument %q", pos[0]))
	}
	log, err := f.common.logger()
	if err != nil {
		return fail(2, err)
	}
	home, err := boot.ResolveHome(f.common.home)
	if err != nil {
		return fail(1, err)
	}
	eng, err := engine.New(engine.Options{
		Home: home, Thinking: f.models.thinking, Mode: f.approval, MaxSteps: f.models.maxTurns,
		AutoRetry: !f.models.noRetry, Selection: f.models.selection(),
	})
	if err != nil {
		return fail(2, err)
	}
	if err := eng.Check(); err != nil {
		// The daemon still serves its sessions' logs; prompts fail until a
		// model resolves.
		log.Warn("no model resolves; prompts will fail", "error", err)
	}
	cwd := f.cwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	var origins []string
	if f.origins != "" {
		origins = strings.Split(f.origins, ",")
	}
	pipeline := acp.NewPipeline()
	var rt *boot.Runtime
	se := withCommands(eng.Session(), pipeline, func() *actor.ActorSystem { return rt.System })
	rt, err = boot.Start(boot.Options{Home: home, Logger: log, Engine: se, Command: "troupe daemon"})
	if err != nil {
		return fail(1, err)
	}
	// One hub for both sides: REST entries show who is attached over ACP.
	hub := acp.NewHub()
	plug, err := newDaemonPlugins(rt, home, pipeline)
	if err != nil {
		_ = shutdown(rt)
		return fail(2, err)
	}
	api := rest.New(rest.Config{Sessions: rt.Sessions, Models: eng.Models(), Version: currentVersion(), DefaultCwd: cwd,
		Titler: eng.Title, Clients: hub, Log: log, Extensions: plug.extensions, Transformers: plug.transformers,
		DefaultTransformers: plug.cfg.DefaultTransformers, MCPServers: pipeline.MCPServersFor,
		Opened: func(id string) { pipeline.Opened(rt.System, rt.Sessions, id, nil) }})
	settings, err := acpSessionSettings(eng, f.models, f.approval)
	if err != nil {
		// Checked above: sessions are created without a model and their
		// prompts fail until one resolves.
		settings.Provider, settings.Model = nil, nil
	}
	acpHandler := acp.WebSocketHandler(acp.WebSocketConfig{
		Config: acp.Config{Sessions: rt.Sessions, Models: eng.Models(), Version: currentVersion(), Settings: settings, Hub: hub,
			Pipeline: plug.pipeline},
		Peer: plug.peer,
		Start: func(props *actor.Props, name string) error {
			_, err := rt.StartTransport(props, name)
			return err
		},
		Log: log,
	})
	srv, err := daemon.Listen(daemon.Options{
		Listen: f.listen, Home: home, TLSCert: f.tlsCert, TLSKey: f.tlsKey, AllowedOrigins: origins, API: api,
		ACP: acpHandler, MCP: plug.pipeline.MCPHandler(rt.System), Log: log,
	})
	if err != nil {
		_ = shutdown(rt)
		return fail(2, err)
	}
	rt.OnShutdown(boot.StageInput, srv.Shutdown)
	if err := plug.start(rt, srv, log); err != nil {
		_ = shutdown(rt)
		return fail(1, err)
	}
	rt.OnShutdown(boot.StageInput, api.Close)
	ctx, stop := boot.NotifyShutdown(context.Background(), log)
	defer stop()
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
