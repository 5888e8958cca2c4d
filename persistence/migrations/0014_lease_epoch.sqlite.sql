-- A lease's fencing epoch: it grows by one each time the lease passes to
-- an owner that did not hold it (a new session's first claim, a claim
-- after a release, a takeover of a lapsed holder), and never goes back,
-- so a write made under an older epoch is refused in the transaction that
-- tries it (Store.Commit): a process that stalled past its lease (frozen,
-- partitioned away) and comes back cannot append after a newer owner.
-- Releasing a lease keeps its row, owner '', for the epoch's sake.
--
-- SQLite has no ADD COLUMN IF NOT EXISTS, and a migration must run again
-- on a store whose recorded version is older than its tables (as 0012
-- and 0013 do): the table is rebuilt instead, its leases kept at epoch 0.
CREATE TABLE leases_with_epoch (
    session_id  TEXT    PRIMARY KEY,
    owner       TEXT    NOT NULL,              -- random id of the holding process; '' released
    pid         INTEGER NOT NULL,
    host        TEXT    NOT NULL,
    started     INTEGER NOT NULL DEFAULT 0,
    command     TEXT    NOT NULL DEFAULT '',
    acquired_at INTEGER NOT NULL,
    heartbeat   INTEGER NOT NULL,
    epoch       INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

INSERT INTO leases_with_epoch (session_id, owner, pid, host, started, command, acquired_at, heartbeat)
    SELECT session_id, owner, pid, host, started, command, acquired_at, heartbeat FROM leases;
DROP TABLE leases;
ALTER TABLE leases_with_epoch RENAME TO leases;
CREATE INDEX IF NOT EXISTS leases_by_owner ON leases (owner);
