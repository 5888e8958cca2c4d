-- The llama-server processes troupe runs, one row per config name while its
-- program runs, so that a troupe that died without stopping them lets the
-- next one find and end them. The owner is the troupe process that started
-- it; pid and start times are checked together, against pid reuse.
CREATE TABLE llama_servers (
    name          TEXT    PRIMARY KEY,           -- the config's name
    pid           INTEGER NOT NULL,
    pgid          INTEGER NOT NULL,              -- its process group: what is killed
    started       INTEGER NOT NULL DEFAULT 0,    -- the pid's start time (0: unknown)
    host          TEXT    NOT NULL,
    port          INTEGER NOT NULL,
    owner_pid     INTEGER NOT NULL,              -- the troupe process running it
    owner_started INTEGER NOT NULL DEFAULT 0,
    recorded_at   INTEGER NOT NULL               -- unix nanoseconds
) WITHOUT ROWID;
