package persistence

import (
	"cmp"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/mattn/go-sqlite3" // registers the "sqlite3" driver
)

// ErrSessionNotFound is returned for a session id the store has never seen.
var ErrSessionNotFound = errors.New("session not found")

// Options tune the store. The zero value is what troupe runs with.
type Options struct {
	// Synchronous is SQLite's synchronous pragma. NORMAL (the default) keeps
	// every committed transaction across a process crash (kill -9); FULL
	// also keeps it across power loss, at an fsync per commit.
	Synchronous string
	// Readers caps the reader pool; 0 means 4.
	Readers int
	// Owner is the process identity the store writes as: with one, every
	// session written needs its lease (see lease.go). The zero Owner
	// writes without leases, for tools and tests of the store alone.
	Owner Owner
	// LeaseTTL is how long a lease outlives its last heartbeat; 0 means
	// DefaultLeaseTTL.
	LeaseTTL time.Duration
}

// Store is an open event store: a SQLite file (Open), troupe's embedded
// default, or a PostgreSQL database (OpenPostgres) that several daemons
// share. One type serves both: the dialect picks the few fragments of SQL
// that differ (dialect.go), and everything else (batches, leases and
// their fencing, seq checks, snapshots, lists) is the same code.
type Store struct {
	d      dialect
	path   string // the SQLite file; "" for PostgreSQL
	desc   string // PostgreSQL's URL without its password
	writer *sql.DB
	reader *sql.DB

	owner    Owner
	leaseTTL time.Duration

	stmtMu sync.Mutex
	insert map[int]*sql.Stmt // multi-row event inserts by row count
	stmts  writerStmts

	commitMu sync.Mutex // Commit is serial; it guards what commits reuse
	args     []any      // the multi-row INSERT's arguments, reused
	leases   heldCache  // the sessions whose lease this process holds

	ckpt *checkpointer

	readOnly bool // OpenReadOnly: no writer, no checkpointer; writes fail

	tips *tipWatcher // PostgreSQL's LISTEN for Follow; nil for SQLite

	eventsRead         atomic.Int64 // rows Load/LoadRange read (EventsRead)
	snapshotsDiscarded atomic.Int64 // see SnapshotsDiscarded
}

// Open opens (creating if needed) the store at path and migrates it.
func Open(path string, opts Options) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if err := createPrivate(path); err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	sync := cmp.Or(opts.Synchronous, "NORMAL")
	w, err := sql.Open(writerDriver(), dsn(path, url.Values{
		"_journal_mode": {"WAL"}, "_busy_timeout": {"5000"}, "_foreign_keys": {"on"},
		"_txlock": {"immediate"}, "_synchronous": {sync},
	}))
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	// One connection: SQLite has one writer anyway, and a single connection
	// makes the writer's transactions strictly ordered.
	w.SetMaxOpenConns(1)
	if err := migrate(w, sqliteDialect); err != nil {
		w.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	readers := opts.Readers
	if readers <= 0 {
		readers = 4
	}
	r, err := sql.Open("sqlite3", dsn(path, url.Values{
		"_busy_timeout": {"5000"}, "_query_only": {"true"},
	}))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open store readers %s: %w", path, err)
	}
	r.SetMaxOpenConns(readers)
	r.SetMaxIdleConns(readers)
	s := &Store{path: path, writer: w, reader: r, insert: map[int]*sql.Stmt{}, owner: opts.Owner, leaseTTL: opts.LeaseTTL,
		leases: heldCache{version: -1}}
	if s.leaseTTL <= 0 {
		s.leaseTTL = DefaultLeaseTTL
	}
	if err := s.stmts.prepare(w, sqliteDialect); err != nil {
		s.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if s.ckpt, err = openCheckpointer(path, sync, &s.commitMu); err != nil {
		s.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return s, nil
}

// createPrivate makes the database file, when there is none, readable
// and writable by its owner alone. SQLite would create it 0644 (less the
// umask) and gives its -wal and -shm files the database file's mode, so
// the mode of this one empty file (an empty database to SQLite) is the
// mode of all three; the process's umask, which every program troupe
// starts inherits, is left alone.
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return f.Close()
}

func dsn(path string, params url.Values) string {
	return "file:" + path + "?" + params.Encode()
}

// LeaseTTL is how long a lease outlives its last heartbeat.
func (s *Store) LeaseTTL() time.Duration { return s.leaseTTL }

// Path is the database file; "" for a PostgreSQL store.
func (s *Store) Path() string { return s.path }

// Describe names the store for people: the SQLite file, or the
// PostgreSQL URL without its password.
func (s *Store) Describe() string {
	if s.d == postgresDialect {
		return s.desc
	}
	return s.path
}

// Postgres reports whether the store is a PostgreSQL database.
func (s *Store) Postgres() bool { return s.d == postgresDialect }

// Close releases this process's leases and closes both pools. Callers stop
// the writer actor first.
func (s *Store) Close() error {
	if s.readOnly {
		return s.reader.Close()
	}
	ckpt := s.ckpt.close()
	released := s.releaseAll()
	s.stmtMu.Lock()
	for _, st := range s.insert {
		st.Close()
	}
	s.insert = map[int]*sql.Stmt{}
	s.stmtMu.Unlock()
	s.stmts.close()
	s.tips.close()
	return errors.Join(ckpt, released, s.reader.Close(), s.writer.Close())
}

// WALSize is the size of the store's write-ahead log file in bytes, 0 when
// there is none: what the checkpointer keeps bounded.
func (s *Store) WALSize() int64 {
	fi, err := os.Stat(s.path + "-wal")
	if err != nil {
		return 0
	}
	return fi.Size()
}

// IntegrityCheck runs PRAGMA integrity_check and returns its verdict ("ok"
// when the file is sound).
func (s *Store) IntegrityCheck() (string, error) {
	if s.d == postgresDialect {
		return "", fmt.Errorf("integrity check %s: SQLite's alone (a PostgreSQL store's server checks its own)", s.desc)
	}
	var verdict string
	if err := s.reader.QueryRow("PRAGMA integrity_check").Scan(&verdict); err != nil {
		return "", fmt.Errorf("integrity check %s: %w", s.path, err)
	}
	return verdict, nil
}
