package persistence

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// The PostgreSQL store is the same Store over another database, for
// troupe daemons that share one store (a cluster's members): the same
// schema from the same migrations, the same statements (dialect.go),
// the same leases, fencing and seq checks in the same transactions.
// What differs: its members write concurrently, so a commit locks the
// lease rows it checks (dialect.lockRows) where SQLite's one write lock
// serialises everything, and the lease cache lasts one transaction; a
// commit notifies followers on other members (follow.go); and there is
// no file, so no checkpointer, WAL or integrity check.

// IsPostgresURL reports whether target names a PostgreSQL store
// (postgres://… or postgresql://…) rather than a SQLite file.
func IsPostgresURL(target string) bool {
	return strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://")
}

// pingTimeout bounds the first connection, so that a daemon pointed at a
// server that does not answer says so instead of hanging.
const pingTimeout = 15 * time.Second

// OpenPostgres opens the PostgreSQL store at dsn (a postgres:// URL, with
// any of the settings pgx reads: host may be a unix socket's directory;
// a password may come from PGPASSWORD or ~/.pgpass), creating its
// tables or migrating them. The database must exist. Options are
// Open's; Synchronous is SQLite's and ignored (PostgreSQL's
// synchronous_commit is the server's).
func OpenPostgres(dsn string, opts Options) (*Store, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	desc := redactURL(dsn)
	w := stdlib.OpenDB(*cfg)
	// One connection: the store writer commits one batch at a time, and
	// a single connection keeps this process's transactions ordered.
	w.SetMaxOpenConns(1)
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("open store %s: %w", desc, err)
	}
	if err := migrate(w, postgresDialect); err != nil {
		w.Close()
		return nil, fmt.Errorf("open store %s: %w", desc, err)
	}
	readers := opts.Readers
	if readers <= 0 {
		readers = 4
	}
	r := stdlib.OpenDB(*cfg)
	r.SetMaxOpenConns(readers)
	r.SetMaxIdleConns(readers)
	s := &Store{d: postgresDialect, desc: desc, writer: w, reader: r, insert: map[int]*sql.Stmt{},
		owner: opts.Owner, leaseTTL: opts.LeaseTTL, leases: heldCache{version: -1}, tips: newTipWatcher(cfg)}
	if s.leaseTTL <= 0 {
		s.leaseTTL = DefaultLeaseTTL
	}
	if err := s.stmts.prepare(w, postgresDialect); err != nil {
		s.Close()
		return nil, fmt.Errorf("open store %s: %w", desc, err)
	}
	return s, nil
}

// OpenTarget opens the store target names: a PostgreSQL URL
// (IsPostgresURL) or a SQLite file's path.
func OpenTarget(target string, opts Options) (*Store, error) {
	if IsPostgresURL(target) {
		return OpenPostgres(target, opts)
	}
	return Open(target, opts)
}

// redactURL is dsn without its password, for logs and errors.
func redactURL(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres://…"
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// HasPassword reports whether a PostgreSQL URL carries a password (in
// its user part or its query), which must not be written where clients
// of the home can read it.
func HasPassword(dsn string) bool {
	u, err := url.Parse(dsn)
	if err != nil {
		return false
	}
	_, has := u.User.Password()
	return has || u.Query().Has("password")
}

// pgError is err's PostgreSQL error, nil when it is none.
// pgConflictTries bounds how often Commit runs a batch whose transaction
// PostgreSQL ended for a deadlock or a serialization failure, and
// pgConflictPause is the wait before the first retry (growing by as much
// each time).
const (
	pgConflictTries = 5
	pgConflictPause = 5 * time.Millisecond
)

// pgConflict reports whether err ended a transaction that may simply run
// again: a deadlock broken (40P01) or a serialization failure (40001).
func pgConflict(err error) bool {
	pe := pgError(err)
	return pe != nil && (pe.Code == "40P01" || pe.Code == "40001")
}

func pgError(err error) *pgconn.PgError {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}

// pgRefusedRow is refusedRow for PostgreSQL: an integrity constraint
// (a seq already taken, a missing session row), bad data or a row past a
// limit, all caused by one session's rows.
func pgRefusedRow(pe *pgconn.PgError) bool {
	switch pe.Code[:2] {
	case "23", "22", "54":
		return true
	}
	return false
}

// pgWriteError is classifyWrite for PostgreSQL: the server's disk full,
// its I/O failing, a read-only server or a corrupt relation are the
// store's, not the batch's.
func pgWriteError(err error, pe *pgconn.PgError) error {
	switch {
	case pe.Code == "53100": // disk_full
		return &WriteError{Full: true, Err: err}
	case pe.Code[:2] == "58", pe.Code == "25006", pe.Code == "XX001", pe.Code == "XX002":
		return &WriteError{Err: err}
	}
	return err
}
