-- The events an attention fold reads (awaitingInput, the attention flags of
-- GET /v1/sessions/attention): a session list reads them for every session,
-- so they are found without scanning the deltas. Partial: other events cost
-- no index entry. Store.LoadAttention repeats this WHERE verbatim, which
-- SQLite needs to use the index (a bound parameter would not do).
CREATE INDEX events_attention ON events (session_id, seq)
  WHERE kind IN ('attention.changed', 'tool.permission_requested', 'tool.permission_resolved', 'run.ended', 'run.interrupted');
