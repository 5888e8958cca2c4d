-- PostgreSQL's 0013 (see 0013_session_heads.sqlite.sql): greatest for
-- SQLite's scalar max.
UPDATE sessions SET
    last_seq = coalesce((SELECT max(seq) FROM events WHERE session_id = sessions.id), 0),
    updated_at = greatest(updated_at, coalesce((SELECT recorded_at FROM events WHERE session_id = sessions.id
        ORDER BY seq DESC LIMIT 1), 0));

DROP INDEX IF EXISTS sessions_by_cwd;
CREATE INDEX IF NOT EXISTS sessions_cold ON sessions (updated_at DESC, id) WHERE status = 'cold';
CREATE INDEX IF NOT EXISTS sessions_cold_by_cwd ON sessions (cwd, updated_at DESC, id) WHERE status = 'cold';
CREATE INDEX IF NOT EXISTS sessions_open ON sessions (status) WHERE status != 'cold';
CREATE INDEX IF NOT EXISTS events_raised ON events (session_id) WHERE kind IN ('attention.changed', 'tool.permission_requested');
