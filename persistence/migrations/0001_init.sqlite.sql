-- The session snapshot is a cache of the fold of its events, kept so that
-- listing sessions never replays logs. Events are the truth.
CREATE TABLE sessions (
    id              TEXT PRIMARY KEY,
    title           TEXT    NOT NULL DEFAULT '',
    cwd             TEXT    NOT NULL DEFAULT '',
    status          TEXT    NOT NULL DEFAULT 'cold', -- live | cold | failed
    status_reason   TEXT    NOT NULL DEFAULT '',
    provider        TEXT    NOT NULL DEFAULT '',
    model           TEXT    NOT NULL DEFAULT '',
    usage           TEXT    NOT NULL DEFAULT '{}',   -- JSON event.Usage
    parent_id       TEXT    NOT NULL DEFAULT '',
    forked_from_seq INTEGER NOT NULL DEFAULT 0,
    last_seq        INTEGER NOT NULL DEFAULT 0,
    created_at      INTEGER NOT NULL,                -- unix nanoseconds
    updated_at      INTEGER NOT NULL
);

CREATE INDEX sessions_by_cwd ON sessions (cwd, updated_at);

-- WITHOUT ROWID keeps each session's log contiguous in the primary key, so
-- a replay is one range scan.
CREATE TABLE events (
    session_id  TEXT    NOT NULL REFERENCES sessions (id),
    seq         INTEGER NOT NULL,
    recorded_at INTEGER NOT NULL,                    -- unix nanoseconds
    kind        TEXT    NOT NULL,
    payload     BLOB    NOT NULL,                    -- JSON object
    PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
