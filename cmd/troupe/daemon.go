package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/troupehq/troupe/actors/sessions/engine"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/runtime/logfile"
	"github.com/troupehq/troupe/runtime/logging"
	"github.com/troupehq/troupe/transports/daemon"
)

// daemonFlags are the daemon's own: `troupe daemon`'s, and those `daemon
// start` and `restart` pass on to the background daemon. The common flags
// are the subtree's (newDaemonCmd).
type daemonFlags struct {
	common          *commonFlags
	models          modelFlags
	listen          string
	metricsListen   string
	tlsCert, tlsKey string
	origins         string
	approval        string
	cwd             string
	logFile         string
	logTime         string // the logger's time format: set for --log-file
	mcpRecall       bool
	store           string
	leaseTTL        time.Duration
	cluster         clusterFlags
	fs              *pflag.FlagSet // where they were registered: which were given
}

func (f *daemonFlags) register(fs *pflag.FlagSet) {
	f.fs = fs
	f.models.register(fs)
	fs.StringVar(&f.listen, "listen", "", "address to listen on; other than loopback needs TLS (default: config.json's daemon.host:port, else "+daemon.DefaultListen+")")
	fs.StringVar(&f.metricsListen, "metrics-listen", "", "also serve /metrics here, WITHOUT authentication (a bare :port is loopback's); /metrics on --listen needs a token")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "TLS certificate (PEM)")
	fs.StringVar(&f.tlsKey, "tls-key", "", "TLS private key (PEM)")
	fs.StringVar(&f.origins, "allow-origin", "", "comma-separated browser origins let in besides the daemon's own")
	enumVar(fs, &f.approval, "approval-mode", "default", approvalModes, "approval mode of new sessions")
	fs.StringVar(&f.cwd, "cwd", "", "directory of sessions created without one (default: current)")
	fs.StringVar(&f.logFile, "log-file", "", "write logs, stdout and stderr to this file, rotated by size (daemon start uses $TROUPE_HOME/daemon.log)")
	fs.BoolVar(&f.mcpRecall, "mcp-recall", false, "offer every session created over /acp the hydra-acp-recall MCP server")
	fs.StringVar(&f.store, "store", "", "keep sessions in this PostgreSQL database (postgres://…; default $"+storeEnv+", else the home's SQLite file)")
	fs.DurationVar(&f.leaseTTL, "lease-ttl", persistence.DefaultLeaseTTL, "how long a session's lease outlives its holder's last heartbeat: another member takes over a silent member's sessions after it")
	f.cluster.register(fs)
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
			"start, stop, status and restart manage one in the background, and reload (or " +
			"SIGHUP) makes it read models.yml and config.yml again.",
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
	c.AddCommand(newDaemonStartCmd(a, common), newDaemonStopCmd(a, common), newDaemonStatusCmd(a, common), newDaemonRestartCmd(a, common), newDaemonReloadCmd(a, common))
	return c
}

// Rotation of --log-file.
const (
	daemonLogMax  = 10 << 20
	daemonLogKeep = 3
)

// runDaemonForeground is the daemon in this process: the flags become its
// Config (config), it runs until a signal, and its exit code is
// serveDaemon's.
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
		// Every line of the file says when: the logger's records carry
		// the date and time, the plain lines get them as a prefix.
		f.logTime = logfile.StampFormat
		cfg, err := f.config(lf)
		if err != nil {
			return fail(2, err)
		}
		return serveForeground(cfg, logfile.Stamped(lf, nil))
	}
	cfg, err := f.config(stderr)
	if err != nil {
		return fail(2, err)
	}
	return serveForeground(cfg, stderr)
}

// serveForeground serves cfg until a signal, its lines written to stderr.
func serveForeground(cfg daemon.Config, stderr io.Writer) int {
	// Every connection costs a descriptor and the store needs its own:
	// take all the hard limit allows.
	if n, err := daemon.RaiseFileLimit(); err != nil {
		cfg.Log.Warn("open-file limit", "error", err)
	} else {
		cfg.Log.Debug("open-file limit", "limit", n)
	}
	cfg.Signals = true
	return serveDaemon(context.Background(), cfg, stderr)
}

// parseDaemonArgs parses the foreground daemon's flags as `troupe daemon`
// does (the tests start it in-process through it); when they do not parse,
// ok is false and code is the exit code (the reason is printed).
func parseDaemonArgs(args []string, stderr io.Writer) (f daemonFlags, code int, ok bool) {
	f.common = &commonFlags{}
	fs := pflag.NewFlagSet("troupe daemon", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	f.common.register(fs)
	f.register(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return f, 0, false
		}
		fmt.Fprintf(stderr, "troupe daemon: %v\n", err)
		return f, 2, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "troupe daemon: unexpected argument %q (verbs: start, stop, status, restart, reload)\n", fs.Arg(0))
		return f, 2, false
	}
	return f, 0, true
}

// config maps the flags to the daemon's Config, its logs written to
// stderr; the error is a bad --log-level or --log-format.
func (f *daemonFlags) config(stderr io.Writer) (daemon.Config, error) {
	log, err := logging.New(logging.Options{Level: f.common.logLevel, Format: f.common.logFormat, Writer: stderr, TimeFormat: f.logTime})
	if err != nil {
		return daemon.Config{}, err
	}
	args, withheld := f.recorded()
	var origins []string
	if f.origins != "" {
		origins = strings.Split(f.origins, ",")
	}
	clustered, err := f.cluster.options()
	if err != nil {
		return daemon.Config{}, err
	}
	store, fromEnv, err := f.storeURL()
	if err != nil {
		return daemon.Config{}, err
	}
	if fromEnv {
		// Recorded as if given: a restart keeps the store whatever the
		// restarting shell's environment says.
		args = append(args, "--store="+store)
	}
	return daemon.Config{
		Cluster: clustered, Store: store, LeaseTTL: f.leaseTTL,
		Home: f.common.home, Log: log, Listen: f.listen, MetricsListen: f.metricsListen, TLSCert: f.tlsCert, TLSKey: f.tlsKey, AllowedOrigins: origins,
		Engine: engine.Options{Thinking: f.models.thinking, Mode: f.approval, MaxSteps: f.models.maxTurns,
			AutoRetry: !f.models.noRetry, RetryDelay: f.models.retryDelay, Selection: f.models.selection()},
		DefaultCwd: f.cwd, MCPRecall: f.mcpRecall, Version: currentVersion(),
		Args: args, Withheld: withheld, SessionMiddleware: sessionFaults(),
	}, nil
}

// secretFlags are never written down (the pid file is readable by any
// client of the home): a restart asks for them again.
var secretFlags = map[string]bool{"api-key": true}

// notRecorded are the flags a restart must not repeat: the home is the
// restart's own; the rest are `daemon start`'s and `restart`'s, not the
// daemon's.
var notRecorded = map[string]bool{"home": true, "foreground": true, "wait": true, "timeout": true}

// recorded are the flags given ("--name=value"), for the pid file, and
// the names of the secret ones left out.
func (f *daemonFlags) recorded() (args, withheld []string) {
	if f.fs == nil {
		return nil, nil
	}
	f.fs.Visit(func(fl *pflag.Flag) {
		switch {
		case notRecorded[fl.Name]:
		case secretFlags[fl.Name]:
			withheld = append(withheld, fl.Name)
		default:
			args = append(args, "--"+fl.Name+"="+fl.Value.String())
		}
	})
	return args, withheld
}

// serveDaemon runs the daemon until a signal (with cfg.Signals), ctx's
// end or its server's failure, and stops it: exit 0 on a clean stop, 1
// when the start (2 when its configuration), the server or the shutdown
// failed.
func serveDaemon(ctx context.Context, cfg daemon.Config, stderr io.Writer) int {
	return serveDaemonWith(ctx, cfg, stderr, nil)
}

// serveDaemonWith is serveDaemon telling started, when set, of the daemon
// once it listens (a test that runs it in-process looks inside).
func serveDaemonWith(ctx context.Context, cfg daemon.Config, stderr io.Writer, started func(*daemon.Daemon)) int {
	d, err := daemon.Start(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "troupe daemon: %v\n", err)
		if errors.Is(err, daemon.ErrConfig) {
			return 2
		}
		return 1
	}
	// One line on stderr whatever the log level: people and scripts look
	// for it; the address is also in $TROUPE_HOME/daemon.addr.
	fmt.Fprintf(stderr, "troupe daemon: listening on %s\n", d.URL())
	getenv := cfg.Engine.Env
	if getenv == nil {
		getenv = os.Getenv
	}
	daemonFirstUseHint(stderr, d.Home(), cfg.Engine.Selection, getenv)
	if u := d.MetricsURL(); u != "" {
		fmt.Fprintf(stderr, "troupe daemon: metrics on %s/metrics (no authentication)\n", u)
	}
	if started != nil {
		started(d)
	}
	<-d.Done()
	code := 0
	if err := d.Err(); err != nil {
		fmt.Fprintf(stderr, "troupe daemon: %v\n", err)
		code = 1
	}
	// The stop is said (in daemon.log for a detached daemon) with what
	// asked for it, so a log shows when and why the daemon went away.
	why := "asked to stop"
	if s := d.StopSignal(); s != nil {
		why = "signal " + s.String()
	}
	fmt.Fprintf(stderr, "troupe daemon: stopping (%s)\n", why)
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := d.Shutdown(ctx); err != nil {
		fmt.Fprintf(stderr, "troupe daemon: %v\n", err)
		code = 1
	}
	fmt.Fprintf(stderr, "troupe daemon: stopped (exit %d)\n", code)
	return code
}
