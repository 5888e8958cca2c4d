-- One owner process per session at a time. A row is a lease: which process
-- holds the session and when it last proved alive. No foreign key: a lease
-- is taken before a new session's first event is written.
CREATE TABLE leases (
    session_id  TEXT    PRIMARY KEY,
    owner       TEXT    NOT NULL,              -- random id of the holding process
    pid         INTEGER NOT NULL,
    host        TEXT    NOT NULL,
    started     INTEGER NOT NULL DEFAULT 0,    -- the pid's start time (0: unknown), against pid reuse
    command     TEXT    NOT NULL DEFAULT '',   -- e.g. "troupe run", for the error a second process shows
    acquired_at INTEGER NOT NULL,              -- unix nanoseconds
    heartbeat   INTEGER NOT NULL               -- unix nanoseconds
) WITHOUT ROWID;

CREATE INDEX leases_by_owner ON leases (owner);
