-- PostgreSQL's 0002_leases (see 0002_leases.sqlite.sql).
CREATE TABLE leases (
    session_id  TEXT    PRIMARY KEY,
    owner       TEXT    NOT NULL,
    pid         INTEGER NOT NULL,
    host        TEXT    NOT NULL,
    started     BIGINT  NOT NULL DEFAULT 0,
    command     TEXT    NOT NULL DEFAULT '',
    acquired_at BIGINT  NOT NULL,
    heartbeat   BIGINT  NOT NULL
);

CREATE INDEX leases_by_owner ON leases (owner);
