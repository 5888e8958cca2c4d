-- PostgreSQL's 0006 (see 0006_session_interactive.sqlite.sql): the
-- tristate as a nullable BOOLEAN.
ALTER TABLE sessions ADD COLUMN interactive BOOLEAN;
