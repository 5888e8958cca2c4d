-- A session's update.transformed events, read before a replay (the
-- response chain's rewrites and drops). Partial: other events cost no
-- index entry, and a session without any answers from an empty range.
CREATE INDEX events_update_transformed ON events (session_id, seq) WHERE kind = 'update.transformed';
