package persistence

import (
	"database/sql"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mattn/go-sqlite3"
)

// SQLite's automatic checkpoint runs inside the COMMIT that crosses its
// threshold, which put 10–17 ms into one commit in a few hundred: the p99
// of a live chunk. The writer connection turns it off (see writerDriver),
// and a checkpointer copies the WAL into the database on a connection of
// its own, off the commit path.
const (
	// checkpointFrames is about how many WAL frames (pages) accumulate
	// before a PASSIVE checkpoint: SQLite's own default threshold.
	checkpointFrames = 1000
	// truncateAfter is how long the store must be idle before the WAL file
	// is truncated. A PASSIVE checkpoint never blocks the writer but can
	// leave frames behind (a reader still needs them) and never shrinks
	// the file; TRUNCATE does both but takes the write lock, so it only
	// runs when no one is writing.
	truncateAfter = time.Second
	// restartFrames bounds the WAL under a constant stream of commits
	// (64 MiB of 4 KiB pages). The WAL starts over only when a write finds
	// every frame copied, which a PASSIVE checkpoint never achieves while
	// commits keep coming: in a million-delta run the file grew to 140 MB.
	// Past this many frames a RESTART follows the PASSIVE one, with
	// Commit's mutex held so it is not starved of the write lock (the
	// writer takes it again microseconds after each commit): it copies what
	// the PASSIVE one left, little, and lets the next commit start the WAL
	// over; journal_size_limit then shrinks the file.
	restartFrames = 16384
	// checkpointBusy bounds how long a RESTART or TRUNCATE waits for the
	// writer or for readers; it gives up and is tried again later.
	checkpointBusy = 20 * time.Millisecond
	// leftWAL is the size of a WAL found at open that is truncated at
	// once: more than a PASSIVE checkpoint's worth of frames.
	leftWAL = checkpointFrames * 4096
)

var registerWriter sync.Once

// writerDriver is the sqlite3 driver with the automatic checkpoint off on
// every connection it opens, so that a reconnect can never turn it back on.
func writerDriver() string {
	const name = "sqlite3_troupe_writer"
	registerWriter.Do(func() {
		sql.Register(name, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
			writerConnects.Add(1)
			if _, err := c.Exec("PRAGMA wal_autocheckpoint = 0", nil); err != nil {
				return fmt.Errorf("turn off automatic checkpoints: %w", err)
			}
			limit := fmt.Sprintf("PRAGMA journal_size_limit = %d", restartFrames*4096)
			if _, err := c.Exec(limit, nil); err != nil {
				return fmt.Errorf("limit the WAL: %w", err)
			}
			return nil
		}})
	})
	return name
}

// checkpointer owns one goroutine, started by Open and stopped by Close.
// Commits tell it how much they wrote (noteCommit, a few atomic operations);
// it checkpoints PASSIVE once about checkpointFrames have accumulated,
// RESTARTs past restartFrames, and TRUNCATEs the WAL once the store has
// been idle for truncateAfter.
type checkpointer struct {
	db      *sql.DB
	gate    *sync.Mutex  // Commit's: held, no commit is under way
	frames  atomic.Int64 // estimated frames written since the last checkpoint
	last    atomic.Int64 // unix ns of the last commit
	kick    chan struct{}
	stop    chan struct{}
	done    chan struct{}
	fault   func() func() // test hook around a checkpoint (checkpoint_faults.go)
	dirty   bool          // commits happened since the last TRUNCATE
	stopped bool
}

func openCheckpointer(path, synchronous string, gate *sync.Mutex) (*checkpointer, error) {
	db, err := sql.Open("sqlite3", dsn(path, url.Values{
		"_busy_timeout": {fmt.Sprint(checkpointBusy.Milliseconds())}, "_synchronous": {synchronous},
	}))
	if err != nil {
		return nil, fmt.Errorf("open checkpointer: %w", err)
	}
	db.SetMaxOpenConns(1)
	c := &checkpointer{
		db: db, gate: gate, fault: checkpointFault(),
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() >= leftWAL {
		// A process killed under load left its WAL (a daemon that never
		// idled long enough to truncate it): fold it in before this one
		// writes, or each killed process leaves it longer, and every
		// process that opens the store reads all of it to index it.
		c.checkpoint("TRUNCATE")
	}
	go c.run()
	return c, nil
}

// noteCommit counts a commit of about bytes into the WAL: at least one
// page, plus the pages its rows fill.
func (c *checkpointer) noteCommit(bytes int, at time.Time) {
	if c == nil { // PostgreSQL's store has none
		return
	}
	c.last.Store(at.UnixNano())
	if c.frames.Add(1+int64(bytes)/4096) < checkpointFrames {
		return
	}
	select {
	case c.kick <- struct{}{}:
	default: // one is already due
	}
}

func (c *checkpointer) run() {
	defer close(c.done)
	idle := time.NewTimer(truncateAfter)
	defer idle.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-c.kick:
			c.frames.Store(0)
			if _, log := c.checkpoint("PASSIVE"); log >= restartFrames {
				c.gate.Lock()
				c.checkpoint("RESTART")
				c.gate.Unlock()
			}
			c.dirty = true
			idle.Reset(truncateAfter)
		case <-idle.C:
			since := time.Since(time.Unix(0, c.last.Load()))
			if since < truncateAfter {
				idle.Reset(truncateAfter - since)
				continue
			}
			if c.dirty || c.frames.Load() > 0 {
				c.frames.Store(0)
				c.gate.Lock()
				all, _ := c.checkpoint("TRUNCATE")
				c.gate.Unlock()
				c.dirty = !all
			}
			idle.Reset(truncateAfter)
		}
	}
}

// checkpoint runs one checkpoint and reports whether it copied every
// frame, and how many frames the WAL held. A busy or partial one is no
// error: the next one picks up.
func (c *checkpointer) checkpoint(mode string) (all bool, frames int) {
	if c.fault != nil {
		defer c.fault()()
	}
	var busy, log, done int
	err := c.db.QueryRow("PRAGMA wal_checkpoint("+mode+")").Scan(&busy, &log, &done)
	if err != nil {
		slog.Warn("checkpoint failed", "mode", mode, "error", err)
		return false, 0
	}
	return busy == 0 && log == done, log
}

// close stops the goroutine and closes its connection; safe to call twice.
func (c *checkpointer) close() error {
	if c == nil || c.stopped {
		return nil
	}
	c.stopped = true
	close(c.stop)
	<-c.done
	return c.db.Close()
}
