package persistence

import (
	"cmp"
	"database/sql"
	"embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

type migration struct {
	version int
	name    string // the file, for errors
	sql     string
}

// Both stores' schemas come from one list of migrations, numbered
// NNNN_name: a file NNNN_name.sql is the migration of both dialects, and
// where their SQL differs (column types, JSON functions, SQLite's table
// options) the pair NNNN_name.sqlite.sql and NNNN_name.postgres.sql stands
// in for it. Every version must be there for each dialect, so the two
// schemas cannot drift apart by a migration one of them forgot.

// migrations are d's, in version order.
func migrations(d dialect) ([]migration, error) {
	entries, err := migrationFiles.ReadDir("migrations")
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	byVersion := map[int]migration{}
	for _, e := range entries {
		base, ok := strings.CutSuffix(e.Name(), ".sql")
		num, rest, cut := strings.Cut(base, "_")
		if !ok || !cut {
			return nil, fmt.Errorf("migration %s: name must be NNNN_name.sql or NNNN_name.DIALECT.sql", e.Name())
		}
		v, err := strconv.Atoi(num)
		if err != nil {
			return nil, fmt.Errorf("migration %s: %w", e.Name(), err)
		}
		if _, of, dialectOnly := strings.Cut(rest, "."); dialectOnly {
			if of != sqliteDialect.name() && of != postgresDialect.name() {
				return nil, fmt.Errorf("migration %s: unknown dialect %q", e.Name(), of)
			}
			if of != d.name() {
				continue
			}
		}
		if prev, dup := byVersion[v]; dup {
			return nil, fmt.Errorf("migrations %s and %s: two %s migrations numbered %d", prev.name, e.Name(), d.name(), v)
		}
		body, err := migrationFiles.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, fmt.Errorf("migration %s: %w", e.Name(), err)
		}
		byVersion[v] = migration{version: v, name: e.Name(), sql: string(body)}
	}
	out := make([]migration, 0, len(byVersion))
	for _, m := range byVersion {
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b migration) int { return cmp.Compare(a.version, b.version) })
	return out, nil
}

// checkMigrations reports a version one dialect has and the other lacks.
func checkMigrations() error {
	lite, err := migrations(sqliteDialect)
	if err != nil {
		return err
	}
	pg, err := migrations(postgresDialect)
	if err != nil {
		return err
	}
	versions := func(ms []migration) []int {
		out := make([]int, len(ms))
		for i, m := range ms {
			out[i] = m.version
		}
		return out
	}
	if a, b := versions(lite), versions(pg); !slices.Equal(a, b) {
		return fmt.Errorf("migrations differ by dialect: sqlite has %v, postgres %v", a, b)
	}
	return nil
}

// SchemaVersion is the schema this build writes.
func SchemaVersion() int {
	ms, err := migrations(sqliteDialect)
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

// migrate applies d's migrations db lacks. Where each dialect records
// its version: SQLite's user_version (what every store already carries),
// one transaction per migration; PostgreSQL's schema_version table, all
// pending migrations in one transaction (its DDL is transactional) under
// an advisory lock, since the members of a cluster may all start at once
// against one database.
func migrate(db *sql.DB, d dialect) error {
	if err := checkMigrations(); err != nil {
		return err
	}
	ms, err := migrations(d)
	if err != nil {
		return err
	}
	if d == postgresDialect {
		return migratePostgres(db, ms)
	}
	var current int
	if err := db.QueryRow("PRAGMA user_version").Scan(&current); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if err := checkNewer(current, ms); err != nil {
		return err
	}
	for _, m := range ms {
		if m.version <= current {
			continue
		}
		if err := apply(db, m); err != nil {
			return err
		}
	}
	return nil
}

func checkNewer(current int, ms []migration) error {
	if latest := ms[len(ms)-1].version; current > latest {
		return fmt.Errorf("schema version %d is newer than this troupe understands (%d): upgrade troupe", current, latest)
	}
	return nil
}

func apply(db *sql.DB, m migration) error {
	tx, err := db.Begin()
	if err != nil {
		return fmt.Errorf("migrate to %d: %w", m.version, err)
	}
	defer tx.Rollback()
	// The writer's BEGIN is IMMEDIATE: with the write lock held, the
	// version read again says whether another process opening the store
	// at the same time applied this one first.
	var current int
	if err := tx.QueryRow("PRAGMA user_version").Scan(&current); err != nil {
		return fmt.Errorf("migrate to %d: %w", m.version, err)
	}
	if current >= m.version {
		return nil
	}
	if _, err := tx.Exec(m.sql); err != nil {
		return fmt.Errorf("migrate to %d: %w", m.version, err)
	}
	// PRAGMA takes no bound parameters; the version is an int we parsed.
	if _, err := tx.Exec(fmt.Sprintf("PRAGMA user_version = %d", m.version)); err != nil {
		return fmt.Errorf("migrate to %d: %w", m.version, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate to %d: %w", m.version, err)
	}
	return nil
}

// schemaLock is the PostgreSQL advisory lock a migration holds: any
// constant, the same in every troupe ("troupe" in ASCII).
const schemaLock = 0x74726f757065

func migratePostgres(db *sql.DB, ms []migration) error {
	tx, err := db.Begin()
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer tx.Rollback()
	for _, q := range []string{"SELECT pg_advisory_xact_lock(" + strconv.Itoa(schemaLock) + ")",
		"CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"} {
		if _, err := tx.Exec(q); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	var current int
	if err := tx.QueryRow("SELECT coalesce(max(version), 0) FROM schema_version").Scan(&current); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if err := checkNewer(current, ms); err != nil {
		return err
	}
	for _, m := range ms {
		if m.version <= current {
			continue
		}
		if _, err := tx.Exec(m.sql); err != nil {
			return fmt.Errorf("migrate to %d (%s): %w", m.version, m.name, err)
		}
		if _, err := tx.Exec(fmt.Sprintf("INSERT INTO schema_version (version) VALUES (%d)", m.version)); err != nil {
			return fmt.Errorf("migrate to %d: %w", m.version, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}
