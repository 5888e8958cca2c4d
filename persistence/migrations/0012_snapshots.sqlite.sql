-- A snapshot of a fold of a session's log (kind names which fold), so
-- that recovery folds only the log after it. It names the last seq it
-- folds, the hash of the event at that seq (check) and the version of the
-- code that folded it: a snapshot is used only while the log still holds
-- that very event and the code folds the same way, so a log cut, replaced
-- or changed under it, or a change to the fold, discards it by
-- construction. One per session and kind, replaced as the log grows.
CREATE TABLE IF NOT EXISTS snapshots (
    session_id  TEXT    NOT NULL REFERENCES sessions (id),
    kind        TEXT    NOT NULL,
    version     INTEGER NOT NULL,
    seq         INTEGER NOT NULL,
    check_hash  BLOB    NOT NULL,                    -- see persistence.eventCheck
    data        BLOB    NOT NULL,
    written_at  INTEGER NOT NULL,                    -- unix nanoseconds
    PRIMARY KEY (session_id, kind)
);
