package persistence

import (
	"database/sql"
	"fmt"
	"sync/atomic"
)

// writerConnects counts the connections the writer driver opened, in every
// store of the process: a cache keyed by one connection's data_version must
// not survive that connection being replaced.
var writerConnects atomic.Int64

// heldCache remembers which sessions this process's lease check found held,
// so that a commit of many sessions' events checks leases with one
// statement instead of one per session. The lease table changes only in
// this writer's own transactions, which keep the cache up to date, or in
// another connection's, which change PRAGMA data_version. The check runs
// under the write lock, as the fence it replaces did. Commit's mutex
// guards it.
type heldCache struct {
	held     map[string]bool
	version  int64 // data_version the cache is valid at; -1 none
	connects int64 // writerConnects the cache is valid at
}

// begin validates the cache inside a transaction that holds the write lock:
// if another connection committed since the last commit, or the writer's
// connection was replaced, everything is checked again.
func (c *heldCache) begin(tx *sql.Tx, dataVersion *sql.Stmt) error {
	var v int64
	if err := tx.Stmt(dataVersion).QueryRow().Scan(&v); err != nil {
		return fmt.Errorf("read data version: %w", err)
	}
	conns := writerConnects.Load()
	if v != c.version || conns != c.connects || c.held == nil {
		c.held = map[string]bool{}
	}
	c.version, c.connects = v, conns
	return nil
}

// invalidate forgets everything: a failed transaction's claims and checks
// did not happen.
func (c *heldCache) invalidate() {
	c.held, c.version = nil, -1
}
