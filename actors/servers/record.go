package servers

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/runtime/llamaconfig"
	"github.com/troupehq/troupe/runtime/proc"
)

// recorder writes server records to the store from a goroutine the
// supervisor owns, in the order they were asked for, so that no actor waits
// on SQLite. stop ends it once the queue is written.
type recorder struct {
	store *persistence.Store
	log   *slog.Logger

	mu    sync.Mutex
	queue []func(context.Context) error
	wake  chan struct{}
	quit  chan struct{}
}

func startRecorder(store *persistence.Store, log *slog.Logger) *recorder {
	r := &recorder{store: store, log: log, wake: make(chan struct{}, 1), quit: make(chan struct{})}
	go r.loop()
	return r
}

func (r *recorder) add(op func(context.Context) error) {
	r.mu.Lock()
	r.queue = append(r.queue, op)
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *recorder) loop() {
	for {
		select {
		case <-r.wake:
			r.drain()
		case <-r.quit:
			r.drain()
			return
		}
	}
}

func (r *recorder) drain() {
	r.mu.Lock()
	ops := r.queue
	r.queue = nil
	r.mu.Unlock()
	for _, op := range ops {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := op(ctx); err != nil {
			r.log.Warn("record llama-server", "error", err)
		}
		cancel()
	}
}

func (r *recorder) stop() { close(r.quit) }

// Cleanup ends the servers a troupe process started and left behind when
// it died (its record's owner is gone): SIGTERM to the program's group,
// SIGKILL after grace, and the record is deleted. Records of a live troupe
// process are left to it. It runs at boot, before any server starts, and
// blocks for up to grace per server still running; it returns the records
// it cleaned.
func Cleanup(ctx context.Context, store *persistence.Store, grace time.Duration) ([]persistence.ServerRecord, error) {
	_, cleaned, err := Reclaim(ctx, store, grace, nil)
	return cleaned, err
}

// Reclaim is Cleanup for a troupe that adopts: a server left running whose
// config (read through configs) still asks for what runs — same host, and
// the same port when the config fixes one — is returned as an Adopt for the
// supervisor instead of ended. Its record stays until the adopting server
// records itself as the new owner. With configs nil nothing is adopted.
func Reclaim(ctx context.Context, store *persistence.Store, grace time.Duration,
	configs func(name string) (llamaconfig.Config, error)) (adopt []Adopt, cleaned []persistence.ServerRecord, err error) {
	recs, err := store.Servers(ctx)
	if err != nil {
		return nil, nil, err
	}
	for _, r := range recs {
		if !r.OwnerGone() {
			continue
		}
		if a, ok := adoptable(r, configs); ok {
			adopt = append(adopt, a)
			continue
		}
		end(r, grace)
		if err := store.ForgetServer(ctx, r.Name, r.PID); err != nil {
			return adopt, cleaned, err
		}
		cleaned = append(cleaned, r)
	}
	return adopt, cleaned, nil
}

func adoptable(r persistence.ServerRecord, configs func(string) (llamaconfig.Config, error)) (Adopt, bool) {
	if configs == nil || !r.Running() {
		return Adopt{}, false
	}
	cfg, err := configs(r.Name)
	if err != nil || cfg.Host != r.Host || (cfg.Port != 0 && cfg.Port != r.Port) {
		return Adopt{}, false
	}
	return Adopt{Config: cfg, Record: r}, true
}

// end stops a left server's group: SIGTERM, SIGKILL after grace.
func end(r persistence.ServerRecord, grace time.Duration) {
	if !r.Running() {
		return
	}
	proc.TermGroup(r.PGID)
	for deadline := time.Now().Add(grace); r.Running() && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if r.Running() {
		proc.KillGroup(r.PGID)
	}
}
