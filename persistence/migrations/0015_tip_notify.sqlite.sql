-- SQLite's 0015 changes nothing: PostgreSQL's (0015_tip_notify.postgres.sql)
-- notifies followers on other members, and a SQLite store has no other
-- members; its followers poll the file. The number is kept in step.
SELECT 1;
