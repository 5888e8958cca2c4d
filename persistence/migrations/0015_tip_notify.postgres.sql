-- PostgreSQL's 0015: followers on other members learn that a session's
-- log grew from a notification on channel troupe_events whose payload is
-- "LAST_SEQ SESSION_ID". A statement-level trigger sends it from the
-- transaction that inserts the events, whoever inserts them (a commit, an
-- import), without a round trip of the writer's own; like any NOTIFY it
-- is delivered only if that transaction commits.
CREATE OR REPLACE FUNCTION troupe_notify_tips() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('troupe_events', max(seq)::text || ' ' || session_id)
        FROM new_events GROUP BY session_id;
    RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS events_notify_tips ON events;
CREATE TRIGGER events_notify_tips AFTER INSERT ON events
    REFERENCING NEW TABLE AS new_events
    FOR EACH STATEMENT EXECUTE FUNCTION troupe_notify_tips();
