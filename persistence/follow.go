package persistence

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/troupehq/troupe/persistence/event"
)

// Followers read a session's log as another process appends to it (troupe
// events --follow; a cluster member watching a session another member
// hosts). SQLite's followers poll: the writer is another process, and the
// file is all they share. A PostgreSQL commit notifies (NOTIFY on channel
// tipChannel, in its transaction, so it is delivered when and only when
// the events are durable) with each session's new last seq, and a
// follower wakes at once; while the store's LISTEN connection is down
// its followers poll as SQLite's do, and while it is up they still look
// now and then, in case the connection dropped a notification as it
// failed.

// tipChannel is the NOTIFY channel of PostgreSQL commits; a payload is
// "SEQ SESSION": the session's last seq after the commit, then its id.
const tipChannel = "troupe_events"

const (
	// FollowPoll is how often a follower reads the log when no
	// notification can wake it.
	FollowPoll = 100 * time.Millisecond
	// followSafety is how often it reads the log while notifications
	// can.
	followSafety = 5 * time.Second
	// listenRetry is how long the LISTEN connection waits before dialling
	// again after a failure.
	listenRetry = time.Second
)

// Follow calls fn for every event of session with seq >= from, in seq
// order, and then for each event committed after, by whichever process,
// until ctx ends (Follow then returns nil) or fn or a read fails (Follow
// returns that error).
func (s *Store) Follow(ctx context.Context, session string, from int64, fn func(event.Event) error) error {
	wake, stop := s.tips.subscribe(session)
	defer stop()
	next := max(from, 1)
	// Since Go 1.23 a Reset timer delivers nothing stale.
	timer := time.NewTimer(FollowPoll)
	defer timer.Stop()
	for {
		err := s.LoadRange(ctx, session, next, 0, func(e event.Event) error {
			next = e.Seq + 1
			return fn(e)
		})
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		poll := FollowPoll
		if s.tips.listening() {
			poll = followSafety
		}
		timer.Reset(poll)
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		case <-timer.C:
		}
	}
}

// tipWatcher owns a PostgreSQL store's LISTEN connection: one goroutine,
// started by the first follower and stopped by the store's Close, that
// wakes the followers of each session a notification names. A nil
// tipWatcher (SQLite's) wakes no one: its followers poll.
type tipWatcher struct {
	cfg *pgx.ConnConfig
	up  atomic.Bool // LISTEN is in place

	mu      sync.Mutex
	subs    map[string]map[chan struct{}]struct{}
	cancel  context.CancelFunc // nil until started
	done    chan struct{}
	stopped bool
}

func newTipWatcher(cfg *pgx.ConnConfig) *tipWatcher {
	return &tipWatcher{cfg: cfg, subs: map[string]map[chan struct{}]struct{}{}}
}

// subscribe returns a channel that receives when session's log may have
// grown, and the function that ends the subscription.
func (w *tipWatcher) subscribe(session string) (<-chan struct{}, func()) {
	if w == nil {
		return nil, func() {}
	}
	ch := make(chan struct{}, 1)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return nil, func() {}
	}
	if w.subs[session] == nil {
		w.subs[session] = map[chan struct{}]struct{}{}
	}
	w.subs[session][ch] = struct{}{}
	if w.cancel == nil {
		ctx, cancel := context.WithCancel(context.Background())
		w.cancel, w.done = cancel, make(chan struct{})
		go w.run(ctx)
	}
	return ch, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.subs[session], ch)
		if len(w.subs[session]) == 0 {
			delete(w.subs, session)
		}
	}
}

func (w *tipWatcher) listening() bool { return w != nil && w.up.Load() }

// run keeps a LISTEN connection until ctx ends, dialling again after
// each failure.
func (w *tipWatcher) run(ctx context.Context) {
	defer close(w.done)
	for ctx.Err() == nil {
		err := w.listen(ctx)
		w.up.Store(false)
		if ctx.Err() != nil {
			return
		}
		slog.Warn("store notifications lost; followers poll until they are back", "error", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(listenRetry):
		}
	}
}

// listen dials, LISTENs and wakes followers until the connection fails.
func (w *tipWatcher) listen(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, w.cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+tipChannel); err != nil {
		return err
	}
	w.up.Store(true)
	// Whatever was committed while no connection listened.
	w.wakeAll()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		if _, session, ok := strings.Cut(n.Payload, " "); ok {
			w.wake(session)
		}
	}
}

func (w *tipWatcher) wake(session string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for ch := range w.subs[session] {
		select {
		case ch <- struct{}{}:
		default: // already due to look
		}
	}
}

func (w *tipWatcher) wakeAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, chans := range w.subs {
		for ch := range chans {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
}

// close stops the goroutine; safe on nil and twice.
func (w *tipWatcher) close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.stopped = true
	cancel, done := w.cancel, w.done
	w.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}
