-- A session's interactivity, the hydra protocol's tristate: NULL undecided,
-- 0 a piped session (troupe cat) that session lists hide by default, 1 a
-- session a person drives.
ALTER TABLE sessions ADD COLUMN interactive INTEGER;
