-- PostgreSQL's 0014 (see 0014_lease_epoch.sqlite.sql): the lease's
-- fencing epoch.
ALTER TABLE leases ADD COLUMN IF NOT EXISTS epoch BIGINT NOT NULL DEFAULT 0;
