package actors

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/dispatch"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/spawner"
	"github.com/troupehq/troupe/actors/storewriter"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/runtime/datahome"
	"github.com/troupehq/troupe/runtime/logging"
)

// Options configure a runtime. The zero value boots on the default home.
type Options struct {
	Home   string // "" resolves as datahome.Resolve("")
	Logger *slog.Logger
	// LibraryLevel is the level of protoactor's own logs; default Warn.
	LibraryLevel slog.Level
	// IdleTimeout passivates sessions as sessions.SessionConfig.IdleTimeout does:
	// 0 is sessions.DefaultIdleTimeout, <0 never.
	IdleTimeout time.Duration
	Store       persistence.Options
	// StoreURL names a PostgreSQL store (postgres://…) that several
	// daemons may share; "" is the home's SQLite file, troupe.db.
	StoreURL string
	// LeaseTTL, when set, overrides Store.LeaseTTL: how long a session's
	// lease outlives this process's last heartbeat.
	LeaseTTL time.Duration
	// Member names this process as a member of a cluster sharing its store
	// (its host): sessions then run only where their workspace exists
	// (sessions.SessionConfig.Member). "" outside such a cluster.
	Member string
	Writer storewriter.Options
	// Sessions tunes supervision; its Session field is filled in by Boot.
	Sessions sessions.Config
	// SessionMiddleware wraps every session's Receive (fault injection in
	// tests, tracing).
	SessionMiddleware []actor.ReceiverMiddleware
	// TransportMiddleware wraps every transport's Receive, as
	// SessionMiddleware does sessions'.
	TransportMiddleware []actor.ReceiverMiddleware
	// Engine runs prompts in every session; nil hosts logs only.
	Engine *sessions.Engine
	// Command names this process in the session leases it takes, so that
	// another process can say who holds a session ("troupe run"); default
	// the program's name.
	Command string
	// OnSessionLive is every session's sessions.SessionConfig.OnLive.
	OnSessionLive func(id string, lastSeq int64)
}

// Runtime is a booted troupe.
type Runtime struct {
	Home     string
	Store    *persistence.Store
	System   *actor.ActorSystem
	Sessions *sessions.Client
	Log      *slog.Logger

	guardian    *actor.PID
	writer      *actor.PID
	registry    *actor.PID
	transports  *actor.PID
	spawners    map[string]*actor.PID
	transportMW []actor.ReceiverMiddleware
	dispatch    *dispatch.Pool // runs the writer's, sessions' and turns' mailboxes

	mu       sync.Mutex
	hooks    map[Stage][]func(context.Context) error
	shutdown sync.Once
	err      error
}

// Start opens the store and starts the supervision tree.
func Start(opts Options) (*Runtime, error) {
	log := opts.Logger
	if log == nil {
		var err error
		if log, err = logging.New(logging.Options{}); err != nil {
			return nil, err
		}
	}
	home, err := datahome.Resolve(opts.Home, log)
	if err != nil {
		return nil, err
	}
	sopts := opts.Store
	if opts.LeaseTTL > 0 {
		sopts.LeaseTTL = opts.LeaseTTL
	}
	if sopts.Owner.ID == "" {
		// Every booted runtime hosts sessions, so it writes as an owner.
		cmd := cmp.Or(opts.Command, filepath.Base(os.Args[0]))
		sopts.Owner = persistence.ThisProcess(cmd)
	}
	var store *persistence.Store
	if opts.StoreURL != "" {
		store, err = persistence.OpenPostgres(opts.StoreURL, sopts)
	} else {
		store, err = persistence.Open(filepath.Join(home, datahome.StoreFile), sopts)
	}
	if err != nil {
		return nil, err
	}
	libLevel := opts.LibraryLevel
	if libLevel == 0 {
		libLevel = slog.LevelWarn
	}
	// Never WithDeveloperSupervisionLogging: it prints to stdout.
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(s *actor.ActorSystem) *slog.Logger {
		return slog.New(logging.NewActorSystemHandler(log.Handler(), libLevel))
	}))
	rt := &Runtime{Home: home, Store: store, System: sys, Log: log, hooks: map[Stage][]func(context.Context) error{},
		transportMW: append([]actor.ReceiverMiddleware{logPanics}, opts.TransportMiddleware...),
		dispatch:    dispatch.New(mailboxThroughput, mailboxWorkers)}
	key, err := datahome.LoadProcKey(home)
	if err != nil {
		// Only what recovery kills after a crash depends on it: without a
		// key tool processes carry no marker, and none is ever signalled.
		log.Warn("tool processes are not marked; recovery will not kill what a crash leaves running", "error", err)
	}
	scfg := opts.Sessions
	scfg.Session = sessions.SessionConfig{Store: store, IdleTimeout: opts.IdleTimeout, Engine: opts.Engine, Dispatcher: rt.dispatch,
		OnLive: opts.OnSessionLive, ProcKey: key, Member: opts.Member}
	scfg.Middleware = append([]actor.ReceiverMiddleware{logPanics}, opts.SessionMiddleware...)
	wopts := opts.Writer
	if wopts.Dispatcher == nil {
		wopts.Dispatcher = rt.dispatch
	}
	if err := rt.spawnTree(wopts, scfg); err != nil {
		store.Close()
		sys.Shutdown()
		rt.dispatch.Close()
		return nil, err
	}
	ccfg := sessions.ClientConfig{Root: sys.Root, Registry: rt.registry, Store: store, Streams: rt.spawners[SpawnerStreams]}
	if opts.Engine != nil {
		ccfg.SpillDir = opts.Engine.SpillDir
	}
	rt.Sessions = sessions.NewClient(ccfg)
	log.Debug("runtime booted", "home", home)
	return rt, nil
}

// spawnTree starts the guardian, which starts the store writer, then the
// sessions supervisor (sessions need the writer's PID), then the transports
// supervisor.
func (rt *Runtime) spawnTree(wopts storewriter.Options, scfg sessions.Config) error {
	g, err := rt.System.Root.SpawnNamed(guardianProps(rt.Store, wopts, scfg), "troupe")
	if err != nil {
		return fmt.Errorf("start guardian: %w", err)
	}
	res, err := rt.System.Root.RequestFuture(g, &treeQuery{}, 10*time.Second).Result()
	if err != nil {
		return fmt.Errorf("start supervision tree: %w", err)
	}
	tree := res.(*treeReply)
	rt.guardian, rt.writer, rt.registry, rt.transports, rt.spawners = g, tree.writer, tree.registry, tree.transports, tree.spawners
	return nil
}

// Spawner is the guardian's spawner of that name (Spawner…), under which
// code outside any actor starts actors (actors/spawner).
func (rt *Runtime) Spawner(name string) *actor.PID { return rt.spawners[name] }

// SpawnChild starts props as a child of the guardian itself, for a
// supervisor a command adds to the tree (the llama-servers, the daemon's
// plugin supervisors): it is stopped with the tree.
func (rt *Runtime) SpawnChild(props *actor.Props, name string) (*actor.PID, error) {
	return spawner.Spawn(rt.System.Root, rt.guardian, props, name)
}

// Writer is the store writer actor.
func (rt *Runtime) Writer() *actor.PID { return rt.writer }

// Registry is the sessions supervisor.
func (rt *Runtime) Registry() *actor.PID { return rt.registry }

// Transports is the transports supervisor.
func (rt *Runtime) Transports() *actor.PID { return rt.transports }

// The mailbox dispatcher's settings: protoactor's default throughput, and
// enough reused goroutines for every mailbox that runs at once on a few
// cores (past that, runs get goroutines of their own).
const (
	mailboxThroughput = 300
	mailboxWorkers    = 64
)
