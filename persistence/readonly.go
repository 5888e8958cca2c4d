package persistence

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"

	"github.com/mattn/go-sqlite3"
)

// ErrReadOnly is returned by every writing method of a store opened with
// OpenReadOnly.
var ErrReadOnly = errors.New("store opened read-only")

// OpenReadOnly opens an existing store for reading alone, for commands
// that only read (troupe events): it runs no migration, takes no lease,
// starts no checkpointer and writes nothing to the file, so it works on a
// store or home the process may not write and leaves the file's bytes
// and mtime as they were. A store whose schema differs from this build's
// is refused with an error saying what to do, since reading it would
// misread columns a migration adds.
func OpenReadOnly(path string) (*Store, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	r, err := openReader(path, url.Values{"mode": {"ro"}})
	if err != nil && canReadImmutable(path, err) {
		r, err = openReader(path, url.Values{"immutable": {"1"}})
	}
	if err != nil {
		return nil, err
	}
	return &Store{path: path, reader: r, readOnly: true, insert: map[int]*sql.Stmt{}, leaseTTL: DefaultLeaseTTL,
		leases: heldCache{version: -1}}, nil
}

// openReader opens one read-only connection and checks the schema, the
// first query, which is where SQLite says whether it can read the file.
func openReader(path string, mode url.Values) (*sql.DB, error) {
	mode.Set("_busy_timeout", "5000")
	mode.Set("_query_only", "true")
	r, err := sql.Open("sqlite3", dsn(path, mode))
	if err != nil {
		return nil, fmt.Errorf("open store %s read-only: %w", path, err)
	}
	r.SetMaxOpenConns(1)
	if err := checkSchema(r, path); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// canReadImmutable says whether a read-only open that failed may be
// retried as immutable. SQLite reads a WAL-mode file only through its
// -shm index, which it must create when no writer has it open; in a
// directory the process cannot write it cannot, and says "readonly
// database". With no -wal file every committed transaction is in the
// main file, so reading it as immutable (no index, no locks) reads all of
// it; with one, immutable would skip the WAL's commits, so the error
// stands.
func canReadImmutable(path string, err error) bool {
	var se sqlite3.Error
	if !errors.As(err, &se) || (se.Code != sqlite3.ErrReadonly && se.Code != sqlite3.ErrCantOpen) {
		return false
	}
	_, statErr := os.Stat(path + "-wal")
	return errors.Is(statErr, fs.ErrNotExist)
}

// checkSchema refuses a store whose schema is not this build's.
func checkSchema(db *sql.DB, path string) error {
	var current int
	if err := db.QueryRow("PRAGMA user_version").Scan(&current); err != nil {
		return fmt.Errorf("open store %s read-only: read schema version: %w", path, err)
	}
	latest := SchemaVersion()
	switch {
	case current > latest:
		return fmt.Errorf("store %s has schema version %d, newer than this troupe understands (%d): upgrade troupe", path, current, latest)
	case current < latest:
		return fmt.Errorf("store %s has schema version %d, older than this troupe's (%d), and reading it does not migrate it: run any writing troupe command (troupe daemon start, troupe run) once with write access to the home", path, current, latest)
	}
	return nil
}

// writable is the guard of every writing method.
func (s *Store) writable() error {
	if s.readOnly {
		return fmt.Errorf("write to %s: %w", s.path, ErrReadOnly)
	}
	return nil
}
