-- PostgreSQL's 0001_init (see 0001_init.sqlite.sql for what each column
-- holds). Times are unix nanoseconds and seqs 64-bit: BIGINT, where
-- SQLite's INTEGER is 64-bit already; payloads are bytes (BYTEA).
CREATE TABLE sessions (
    id              TEXT PRIMARY KEY,
    title           TEXT    NOT NULL DEFAULT '',
    cwd             TEXT    NOT NULL DEFAULT '',
    status          TEXT    NOT NULL DEFAULT 'cold',
    status_reason   TEXT    NOT NULL DEFAULT '',
    provider        TEXT    NOT NULL DEFAULT '',
    model           TEXT    NOT NULL DEFAULT '',
    usage           TEXT    NOT NULL DEFAULT '{}',
    parent_id       TEXT    NOT NULL DEFAULT '',
    forked_from_seq BIGINT  NOT NULL DEFAULT 0,
    last_seq        BIGINT  NOT NULL DEFAULT 0,
    created_at      BIGINT  NOT NULL,
    updated_at      BIGINT  NOT NULL
);

CREATE INDEX sessions_by_cwd ON sessions (cwd, updated_at);

-- The primary key is the log's order and its guarantee of no duplicate:
-- one row per (session, seq), whoever writes it.
CREATE TABLE events (
    session_id  TEXT    NOT NULL REFERENCES sessions (id),
    seq         BIGINT  NOT NULL,
    recorded_at BIGINT  NOT NULL,
    kind        TEXT    NOT NULL,
    payload     BYTEA   NOT NULL,
    PRIMARY KEY (session_id, seq)
);
