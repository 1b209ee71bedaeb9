-- 0015: the row type of the SQL API's lease_tasks.
--
-- The SQL API (docs/sql-api.md) adds, leases, modifies and deletes tasks
-- with one SQL call, inside the caller's own transaction. Its functions are
-- routines (sql/routines/: add_task, add_tasks, add_push_task, lease_tasks,
-- modify_lease, delete_task, delete_tasks and their helpers); what is not a
-- routine is here and in 0016: the row type lease_tasks returns, a type of
-- its own, not OUT parameters: in PL/pgSQL an OUT parameter may not share
-- its name (tag) with an argument. (A type cannot be replaced in place
-- while a function returns it, so it is versioned, not a routine.)

CREATE TYPE leased_task AS (name text, payload bytea, tag text, retry_count integer, lease_expires_at timestamptz);
