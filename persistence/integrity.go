package persistence

import (
	"context"
	"fmt"
	"net/url"
	"strings"
)

// CheckIntegrity runs SQLite's integrity check over the store at path
// through a read-only connection (no migration, nothing written: troupe
// doctor runs it beside a daemon that holds the store), and returns what
// the check found wrong, or nil for a sound store. A file SQLite cannot
// read at all (not a database, a schema this build does not know) is the
// error.
func CheckIntegrity(ctx context.Context, path string) ([]string, error) {
	r, err := openReader(path, url.Values{"mode": {"ro"}})
	if err != nil && canReadImmutable(path, err) {
		r, err = openReader(path, url.Values{"immutable": {"1"}})
	}
	if err != nil {
		return nil, err
	}
	defer r.Close()
	rows, err := r.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return nil, fmt.Errorf("check store %s: %w", path, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, fmt.Errorf("check store %s: %w", path, err)
		}
		if !strings.EqualFold(line, "ok") {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("check store %s: %w", path, err)
	}
	return problems, nil
}
