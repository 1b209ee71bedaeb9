-- tombstone_retention: a routine of the schema (docs/architecture.md, "SQL is the source of truth"):
-- migrate applies this file after the numbered migrations whenever its text changes.

-- 0015: the SQL API: add, lease, modify and delete tasks with one SQL call,
-- inside the caller's own transaction, from any language or a trigger.
--
--   add_task(queue, payload, name, tag, eta) -> the task's name
--   add_tasks(queue, payloads[], names[], tags[], etas[]) -> names (<= 100)
--   lease_tasks(queue, max_tasks, lease_seconds, tag, group_by_tag) -> rows
--   modify_lease(queue, name, lease_expires_at, lease_seconds) -> new expiry
--   delete_task(queue, name) -> whether a task was deleted
--   delete_tasks(queue, names[]) -> the same for each name (<= 1000)
--
-- Every function takes the queue first and touches that one queue only: a
-- function of that shape is one a sharded PostgreSQL (Citus) can run whole
-- on the node that holds the queue. The rules the database already keeps
-- for every writer (tombstoned names, storage limits, the long-poll wake-up
-- of 0007/0011, the table's constraints) hold here as they do for the
-- service; the rules the service checks before its statements are checked
-- here with the same limits, messages and order, and the behaviour suite
-- (test/sql-api/) runs the same expectations through both. A broken rule
-- raises an error with its own SQLSTATE (class TQ, table in docs/sql-api.md)
-- whose message names the rule and the value, whose DETAIL is the value
-- (task or queue name) and whose HINT is the service's error code; the
-- caller's statement fails, so nothing of a refused batch is stored.
--
-- The six functions run with their owner's rights (SECURITY DEFINER) and a
-- fixed search_path (this schema, then pg_catalog, pg_temp last), so the
-- roles granted them need no right on the tables. The roles
-- <schema>_producer (add) and <schema>_consumer (lease, modify, delete) are
-- created here when missing; where the migrating user may not create roles,
-- the migration says so (WARNING) and goes on, and an administrator runs the
-- statements of docs/sql-api.md.

-- How long a deleted task's name stays held. The service writes its
-- setting (TASKQUEUE_TOMBSTONE_DAYS) here at start-up; 7 days until then.
CREATE OR REPLACE FUNCTION tombstone_retention() RETURNS interval
LANGUAGE sql STABLE
SET search_path FROM CURRENT
AS $$
  SELECT coalesce((SELECT value FROM service_settings WHERE name = 'tombstone_retention_ms'), 604800000)
         * interval '1 millisecond'
$$;

-- The fixed search_path of the schema's functions (this schema, pg_catalog, pg_temp last:
-- a caller's temporary table must not stand in for one of ours; docs/sql-api.md).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION tombstone_retention() SET search_path = %I, pg_catalog, pg_temp', current_schema());
END
$$;
REVOKE ALL ON FUNCTION tombstone_retention() FROM PUBLIC;
