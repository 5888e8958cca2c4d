package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/runtime/datahome"
)

// walWarnBytes is the write-ahead log size past which the doctor warns:
// the daemon's checkpointer keeps it far smaller, so one this large says a
// checkpoint cannot finish (a reader holding an old snapshot, a process
// stuck with the store open).
const walWarnBytes = 256 << 20

// checkStore runs SQLite's integrity check on the store, read-only, and
// looks at its write-ahead log's size.
func (d *doctor) checkStore(ctx context.Context) {
	path := filepath.Join(d.home, datahome.StoreFile)
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		d.r.ok("no store yet (" + datahome.StoreFile + " is created at the first session)")
		return
	}
	if err != nil {
		d.r.problem(fmt.Sprintf("the store %s cannot be read: %v", path, err), "chmod u+rw "+path)
		return
	}
	problems, err := persistence.CheckIntegrity(ctx, path)
	switch {
	case err != nil:
		d.r.problem(fmt.Sprintf("the store %s cannot be read: %v", path, err),
			"restore it from a backup, or move it (and its -wal and -shm files) away to start an empty one; its sessions are lost")
	case len(problems) > 0:
		shown := problems[:min(len(problems), 3)]
		d.r.problem(fmt.Sprintf("the store %s fails SQLite's integrity check: %s", path, strings.Join(shown, "; ")),
			"stop troupe, then `sqlite3 "+path+" .recover` into a new file, or restore a backup")
	default:
		d.r.ok(fmt.Sprintf("the store passes SQLite's integrity check (%s)", size(fi.Size())))
	}
	wal, err := os.Stat(path + "-wal")
	switch {
	case err != nil:
		return // no WAL: everything is in the main file
	case wal.Size() > walWarnBytes:
		d.r.warn(fmt.Sprintf("the store's write-ahead log is %s: its checkpoints are not finishing", size(wal.Size())),
			"stop the troupe processes that use this home (a stuck one holds a snapshot open); the next start folds the log in")
	default:
		d.r.ok(fmt.Sprintf("the store's write-ahead log is %s", size(wal.Size())))
	}
}

// size is a byte count for people.
func size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
