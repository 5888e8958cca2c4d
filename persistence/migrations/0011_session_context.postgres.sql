-- PostgreSQL's 0011 (see 0011_session_context.sqlite.sql), the fill from
-- the logs with PostgreSQL's JSON operators.
ALTER TABLE sessions ADD COLUMN context_used BIGINT NOT NULL DEFAULT 0;

UPDATE sessions SET context_used = coalesce((
    SELECT CASE kind WHEN 'step.ended' THEN
            coalesce((convert_from(payload, 'UTF8')::jsonb #>> '{usage,input}')::bigint, 0)
            + coalesce((convert_from(payload, 'UTF8')::jsonb #>> '{usage,cache_read}')::bigint, 0)
            + coalesce((convert_from(payload, 'UTF8')::jsonb #>> '{usage,output}')::bigint, 0)
        ELSE 0 END
    FROM events WHERE session_id = sessions.id
        AND (kind = 'step.ended' OR (kind = 'compaction.ended'
            AND coalesce(convert_from(payload, 'UTF8')::jsonb ->> 'error', '') = ''
            AND NOT coalesce((convert_from(payload, 'UTF8')::jsonb ->> 'aborted')::boolean, false)))
    ORDER BY seq DESC LIMIT 1), 0);
