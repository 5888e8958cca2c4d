-- PostgreSQL's 0012 (see 0012_snapshots.sqlite.sql).
CREATE TABLE IF NOT EXISTS snapshots (
    session_id  TEXT    NOT NULL REFERENCES sessions (id),
    kind        TEXT    NOT NULL,
    version     INTEGER NOT NULL,
    seq         BIGINT  NOT NULL,
    check_hash  BYTEA   NOT NULL,
    data        BYTEA   NOT NULL,
    written_at  BIGINT  NOT NULL,
    PRIMARY KEY (session_id, kind)
);
