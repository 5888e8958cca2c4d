package boot

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/troupehq/troupe/actors/servers"
	"github.com/troupehq/troupe/runtime/boot/engine"
	"github.com/troupehq/troupe/runtime/llamaconfig"
)

// cleanupGrace is how long a server left by a dead troupe gets after
// SIGTERM before SIGKILL.
const cleanupGrace = 5 * time.Second

// StartServers starts the llama-server supervisor for the commands that
// run servers (troupe stdio): first it ends the servers a troupe that died
// left behind (servers.Cleanup), then it spawns the supervisor, recording
// in this runtime's store. At shutdown, in StageProcesses, every running
// server is stopped (SIGTERM, SIGKILL after its grace) and waited for.
func (rt *Runtime) StartServers(opts servers.Options) (*actor.PID, error) {
	cleaned, err := servers.Cleanup(context.Background(), rt.Store, cleanupGrace)
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
	pid, err := rt.System.Root.SpawnNamed(servers.Props(opts), "servers")
	if err != nil {
		return nil, fmt.Errorf("start servers supervisor: %w", err)
	}
	rt.OnShutdown(StageProcesses, func(ctx context.Context) error { return rt.stopServers(ctx, pid) })
	return pid, nil
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
