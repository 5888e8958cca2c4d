package actors

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/servers"
	"github.com/troupehq/troupe/actors/sessions/engine"
	"github.com/troupehq/troupe/runtime/llamaconfig"
)

// cleanupGrace is how long a server left by a dead troupe gets after
// SIGTERM before SIGKILL.
const cleanupGrace = 5 * time.Second

// StartServers starts the llama-server supervisor for the commands that
// run servers, under the guardian. First it deals with the servers a troupe
// that died left behind: with opts.Outlive (a long-lived troupe, whose
// servers outlive a crash) those whose config still matches are adopted,
// and the rest are ended (servers.Reclaim). At shutdown, in
// StageProcesses, every running server is stopped (SIGTERM, SIGKILL after
// its grace) and waited for: a clean stop leaves none behind.
func (rt *Runtime) StartServers(opts servers.Options) (*actor.PID, error) {
	configs := llamaconfig.Store{Dir: filepath.Join(rt.Home, "configs")}
	read := configs.Read
	if !opts.Outlive {
		read = nil
	}
	adopt, cleaned, err := servers.Reclaim(context.Background(), rt.Store, cleanupGrace, read)
	if err != nil {
		return nil, fmt.Errorf("clean up llama-servers: %w", err)
	}
	for _, r := range cleaned {
		rt.Log.Info("cleaned up a llama-server left by a troupe that died", "config", r.Name, "pid", r.PID, "owner_pid", r.OwnerPID)
	}
	opts.Store = rt.Store
	if opts.Log == nil {
		opts.Log = rt.Log
	}
	if opts.Outlive && opts.LogDir == "" {
		opts.LogDir = filepath.Join(rt.Home, "logs", "llama-server")
		if err := os.MkdirAll(opts.LogDir, 0o700); err != nil {
			return nil, fmt.Errorf("llama-server logs: %w", err)
		}
	}
	pid, err := rt.SpawnChild(servers.Props(opts), "servers")
	if err != nil {
		return nil, fmt.Errorf("start servers supervisor: %w", err)
	}
	for _, a := range adopt {
		rt.Log.Info("adopting a llama-server left by a troupe that died", "config", a.Record.Name, "pid", a.Record.PID, "port", a.Record.Port)
		rt.System.Root.Send(pid, &a)
	}
	rt.OnShutdown(StageProcesses, func(ctx context.Context) error { return rt.stopServers(ctx, pid) })
	return pid, nil
}

// StartLongLivedServers is the llama-server supervisor of a long-lived
// command (troupe daemon, troupe mcp): its servers outlive a crash and the
// next start adopts them, a clean stop ends them. The engine then resolves
// --provider llama on it. A model that does not resolve is only warned
// about: these commands serve more than prompts (logs, the bridge's
// tools), and prompts fail until one resolves.
func (rt *Runtime) StartLongLivedServers(eng *engine.Engine) (*actor.PID, error) {
	sup, err := rt.StartServers(servers.Options{Outlive: true})
	if err != nil {
		return nil, err
	}
	eng.SetLocalServers(rt.LocalServers(sup))
	if err := eng.Check(); err != nil {
		rt.Log.Warn("no model resolves; prompts will fail", "error", err)
	}
	return sup, nil
}

// stopServers stops every server at once, waits for them, then stops the
// supervisor.
func (rt *Runtime) stopServers(ctx context.Context, sup *actor.PID) error {
	res, err := rt.System.Root.RequestFuture(sup, &servers.List{}, 5*time.Second).Result()
	if err != nil {
		return fmt.Errorf("list servers: %w", err)
	}
	var wg sync.WaitGroup
	for _, s := range res.(*servers.Listed).Servers {
		if s.Status == servers.StatusStopped || s.Status == servers.StatusFailed {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			wait := time.Until(deadline(ctx, time.Minute))
			_, _ = rt.System.Root.RequestFuture(sup, &servers.Stop{Name: s.Name}, wait).Result()
		}()
	}
	wg.Wait()
	return rt.System.Root.StopFuture(sup).Wait()
}

func deadline(ctx context.Context, otherwise time.Duration) time.Time {
	if d, ok := ctx.Deadline(); ok {
		return d
	}
	return time.Now().Add(otherwise)
}

// LocalServers is the engine's way to its llama-servers through the
// supervisor sup: a config's server is started on demand (read from the
// home's configs) and its URL answered once it is ready.
func (rt *Runtime) LocalServers(sup *actor.PID) engine.LocalServers {
	return localServers{rt: rt, sup: sup}
}

type localServers struct {
	rt  *Runtime
	sup *actor.PID
}

// serverWait bounds the wait for a server: a large model's load, or a
// restart's backoff, fits well within it.
const serverWait = 15 * time.Minute

func (l localServers) URL(ctx context.Context, name string) (string, error) {
	cfg, err := llamaconfig.Store{Dir: filepath.Join(l.rt.Home, "configs")}.Read(name)
	if err != nil {
		return "", err
	}
	f := l.rt.System.Root.RequestFuture(l.sup, &servers.Start{Name: name, Config: cfg}, serverWait)
	type answer struct {
		res any
		err error
	}
	done := make(chan answer, 1)
	// The future ends by itself (answer or timeout); ctx only stops the
	// wait for it.
	go func() {
		res, err := f.Result()
		done <- answer{res, err}
	}()
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case a := <-done:
		if a.err != nil {
			return "", fmt.Errorf("start llama-server %s: %w", name, a.err)
		}
		st := a.res.(*servers.Started)
		if st.Err != nil {
			return "", st.Err
		}
		return "http://" + net.JoinHostPort(st.Info.Host, strconv.Itoa(st.Info.Port)) + "/v1", nil
	}
}

// LazyServers is engine.LocalServers for the one-conversation commands
// (troupe run, --mode rpc, --json-stream, troupe acp). Set on the engine
// before boot and bound to the runtime after it, it starts the servers
// supervisor only when a session first asks for a config's server: a
// command on a remote model pays nothing for it. Its servers do not
// outlive the command.
type LazyServers struct {
	mu  sync.Mutex
	rt  *Runtime
	sup *actor.PID
	err error
}

// Bind gives l its runtime, once boot.Start returned it.
func (l *LazyServers) Bind(rt *Runtime) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rt = rt
}

func (l *LazyServers) URL(ctx context.Context, name string) (string, error) {
	rt, sup, err := l.supervisor()
	if err != nil {
		return "", err
	}
	return localServers{rt: rt, sup: sup}.URL(ctx, name)
}

func (l *LazyServers) supervisor() (*Runtime, *actor.PID, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.rt == nil {
		return nil, nil, fmt.Errorf("llama-servers: the runtime is not started yet")
	}
	if l.sup == nil && l.err == nil {
		l.sup, l.err = l.rt.StartServers(servers.Options{})
	}
	return l.rt, l.sup, l.err
}
