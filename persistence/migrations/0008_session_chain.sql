-- What the daemon's hydra pipeline keeps of a session across restarts: the
-- session a transformer spawned it for ('' for none; not a fork's parent_id,
-- which inherits history) and its transformer chain (a JSON array, NULL for
-- none), both folded from the log.
ALTER TABLE sessions ADD COLUMN child_of TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN transformers TEXT;
