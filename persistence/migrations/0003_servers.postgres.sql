-- PostgreSQL's 0003_servers (see 0003_servers.sqlite.sql).
CREATE TABLE llama_servers (
    name          TEXT    PRIMARY KEY,
    pid           INTEGER NOT NULL,
    pgid          INTEGER NOT NULL,
    started       BIGINT  NOT NULL DEFAULT 0,
    host          TEXT    NOT NULL,
    port          INTEGER NOT NULL,
    owner_pid     INTEGER NOT NULL,
    owner_started BIGINT  NOT NULL DEFAULT 0,
    recorded_at   BIGINT  NOT NULL
);
