-- The context a session's last step used (its input, cache read and
-- output tokens; 0 after a compaction that ended well, until the next
-- step), folded from the log, so that session lists say how full each
-- session's context is without reading logs. Old stores take it from
-- their logs here.
ALTER TABLE sessions ADD COLUMN context_used INTEGER NOT NULL DEFAULT 0;

UPDATE sessions SET context_used = coalesce((
    SELECT CASE kind WHEN 'step.ended' THEN
            coalesce(json_extract(CAST(payload AS TEXT), '$.usage.input'), 0)
            + coalesce(json_extract(CAST(payload AS TEXT), '$.usage.cache_read'), 0)
            + coalesce(json_extract(CAST(payload AS TEXT), '$.usage.output'), 0)
        ELSE 0 END
    FROM events WHERE session_id = sessions.id
        AND (kind = 'step.ended' OR (kind = 'compaction.ended'
            AND coalesce(json_extract(CAST(payload AS TEXT), '$.error'), '') = ''
            AND NOT coalesce(json_extract(CAST(payload AS TEXT), '$.aborted'), 0)))
    ORDER BY seq DESC LIMIT 1), 0);
