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

// heldCache remembers which sessions this process's lease check found held
// (and at which epoch), and the last seq of each session's log as this
// process committed it, so that a commit of many sessions' events checks
// leases and seqs with one statement instead of two per session. The
// lease table and the logs change only in this writer's own transactions,
// which keep the cache up to date, or in another connection's, which
// change PRAGMA data_version: SQLite's. PostgreSQL has no such counter
// and other members write concurrently, so there the cache lasts one
// transaction, whose reads lock the lease rows (see fence). The check
// runs under the write lock, as the fence it replaces did. Commit's mutex
// guards it.
type heldCache struct {
	held     map[string]int64 // session -> the epoch this process holds its lease at
	last     map[string]int64 // session -> its log's last seq
	version  int64            // data_version the cache is valid at; -1 none
	connects int64            // writerConnects the cache is valid at
}

// begin validates the cache inside a transaction that holds the write lock:
// if another connection committed since the last commit, or the writer's
// connection was replaced, everything is checked again. Without a
// dataVersion statement (PostgreSQL) it always is.
func (c *heldCache) begin(tx *sql.Tx, dataVersion *sql.Stmt) error {
	if dataVersion == nil {
		c.held, c.last = map[string]int64{}, map[string]int64{}
		return nil
	}
	var v int64
	if err := tx.Stmt(dataVersion).QueryRow().Scan(&v); err != nil {
		return fmt.Errorf("read data version: %w", err)
	}
	conns := writerConnects.Load()
	if v != c.version || conns != c.connects || c.held == nil {
		c.held, c.last = map[string]int64{}, map[string]int64{}
	}
	c.version, c.connects = v, conns
	return nil
}

// forget drops what the cache knows of session id (its lease released).
func (c *heldCache) forget(id string) {
	delete(c.held, id)
	delete(c.last, id)
}

// invalidate forgets everything: a failed transaction's claims and checks
// did not happen.
func (c *heldCache) invalidate() {
	c.held, c.last, c.version = nil, nil, -1
}
