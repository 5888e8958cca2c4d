-- PostgreSQL's 0010 (see 0010_session_agent.sqlite.sql), the fill from
-- the logs with PostgreSQL's JSON operators.
ALTER TABLE sessions ADD COLUMN agent TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN upstream_session_id TEXT NOT NULL DEFAULT '';

UPDATE sessions SET
    agent = coalesce((SELECT coalesce(convert_from(payload, 'UTF8')::jsonb #>> '{settings,agent}',
            convert_from(payload, 'UTF8')::jsonb ->> 'agent')
        FROM events WHERE session_id = sessions.id
            AND kind IN ('session.created', 'session.settings_changed')
            AND coalesce(convert_from(payload, 'UTF8')::jsonb #>> '{settings,agent}',
                convert_from(payload, 'UTF8')::jsonb ->> 'agent') IS NOT NULL
        ORDER BY seq DESC LIMIT 1), ''),
    upstream_session_id = coalesce((SELECT coalesce(convert_from(payload, 'UTF8')::jsonb #>> '{settings,upstream_session_id}',
            convert_from(payload, 'UTF8')::jsonb ->> 'upstream_session_id')
        FROM events WHERE session_id = sessions.id
            AND kind IN ('session.created', 'session.settings_changed')
            AND coalesce(convert_from(payload, 'UTF8')::jsonb #>> '{settings,upstream_session_id}',
                convert_from(payload, 'UTF8')::jsonb ->> 'upstream_session_id') IS NOT NULL
        ORDER BY seq DESC LIMIT 1), '');

CREATE INDEX sessions_by_upstream ON sessions (upstream_session_id) WHERE upstream_session_id != '';
