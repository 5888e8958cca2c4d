-- The ACP agent that answers a session ('' for troupe's own engine) and the
-- session id that agent gave it, folded from the log (session.created's
-- settings, then each settings_changed), so that session lists name the
-- real agent and a sync finds the upstream sessions already recorded
-- without replaying logs. Old stores take both from their logs here.
ALTER TABLE sessions ADD COLUMN agent TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN upstream_session_id TEXT NOT NULL DEFAULT '';

UPDATE sessions SET
    agent = coalesce((SELECT coalesce(json_extract(CAST(payload AS TEXT), '$.settings.agent'),
            json_extract(CAST(payload AS TEXT), '$.agent'))
        FROM events WHERE session_id = sessions.id
            AND kind IN ('session.created', 'session.settings_changed')
            AND coalesce(json_extract(CAST(payload AS TEXT), '$.settings.agent'),
                json_extract(CAST(payload AS TEXT), '$.agent')) IS NOT NULL
        ORDER BY seq DESC LIMIT 1), ''),
    upstream_session_id = coalesce((SELECT coalesce(json_extract(CAST(payload AS TEXT), '$.settings.upstream_session_id'),
            json_extract(CAST(payload AS TEXT), '$.upstream_session_id'))
        FROM events WHERE session_id = sessions.id
            AND kind IN ('session.created', 'session.settings_changed')
            AND coalesce(json_extract(CAST(payload AS TEXT), '$.settings.upstream_session_id'),
                json_extract(CAST(payload AS TEXT), '$.upstream_session_id')) IS NOT NULL
        ORDER BY seq DESC LIMIT 1), '');

CREATE INDEX sessions_by_upstream ON sessions (upstream_session_id) WHERE upstream_session_id != '';
