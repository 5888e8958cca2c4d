-- A session list reads, for each session, the seq and time of its newest
-- event. A commit writes no session row (that UPDATE cost a third of a
-- one-event commit), so a session that could be written reads them from
-- its log; a cold one cannot be written until an actor hosts it again,
-- which first writes its row live, so its row keeps them (last_seq, and
-- updated_at moved up to its newest event's time), rewritten from the
-- log in the transaction that records it cold (Store.Commit, Import). A
-- list of 100,000 cold sessions then reads rows in index order, and no
-- log. Old stores take both from their logs here.
UPDATE sessions SET
    last_seq = coalesce((SELECT max(seq) FROM events WHERE session_id = sessions.id), 0),
    updated_at = max(updated_at, coalesce((SELECT recorded_at FROM events WHERE session_id = sessions.id
        ORDER BY seq DESC LIMIT 1), 0));

-- The cold sessions in the list's order (newest first, then id), all of
-- them or a directory's; the few others (live, failed) are found by the
-- second index and read from their logs. Store.Sessions repeats both
-- WHEREs verbatim, which SQLite needs to use a partial index.
DROP INDEX IF EXISTS sessions_by_cwd;
CREATE INDEX IF NOT EXISTS sessions_cold ON sessions (updated_at DESC, id) WHERE status = 'cold';
CREATE INDEX IF NOT EXISTS sessions_cold_by_cwd ON sessions (cwd, updated_at DESC, id) WHERE status = 'cold';
CREATE INDEX IF NOT EXISTS sessions_open ON sessions (status) WHERE status != 'cold';

-- The sessions that ever raised an attention flag or asked a permission:
-- only their attention events can fold to awaitingInput, so a list of
-- every session reads those sessions' events and not every session's
-- run.ended. Store.LoadAttention repeats this WHERE verbatim.
CREATE INDEX IF NOT EXISTS events_raised ON events (session_id) WHERE kind IN ('attention.changed', 'tool.permission_requested');
