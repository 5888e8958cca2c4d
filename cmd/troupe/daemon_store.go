package main

import (
	"cmp"
	"errors"
	"os"

	"github.com/troupehq/troupe/persistence"
)

// storeEnv names the daemon's store when --store does not.
const storeEnv = "TROUPE_STORE"

// storeURL is the daemon's store: --store, else $TROUPE_STORE, else ""
// (the home's SQLite file); fromEnv says the environment named it. A
// store URL is recorded in the pid file, which every client of the home
// reads, and `daemon start` passes it on a command line: one carrying a
// password is refused (PGPASSWORD or ~/.pgpass give it, read by pgx).
func (f *daemonFlags) storeURL() (url string, fromEnv bool, err error) {
	url = cmp.Or(f.store, os.Getenv(storeEnv))
	if url == "" {
		return "", false, nil
	}
	if !persistence.IsPostgresURL(url) {
		return "", false, errors.New("--store: want a postgres:// URL (without it the store is the home's SQLite file)")
	}
	if persistence.HasPassword(url) {
		return "", false, errors.New("--store: the URL carries a password, which would be recorded in the pid file and shown on command lines: give it with PGPASSWORD or ~/.pgpass")
	}
	return url, f.store == "", nil
}
