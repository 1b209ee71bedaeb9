-- 0015: the SQL API's type and roles.
--
-- The SQL API (docs/sql-api.md) adds, leases, modifies and deletes tasks
-- with one SQL call, inside the caller's own transaction. Its functions are
-- routines (sql/routines/: add_task, add_tasks, add_push_task, lease_tasks,
-- modify_lease, delete_task, delete_tasks and their helpers), each granted
-- there to the role below that may call it; this migration holds what is
-- not a routine: the row type lease_tasks returns, and the roles.

-- A row of lease_tasks. A type of its own, not OUT parameters: in
-- PL/pgSQL an OUT parameter may not share its name (tag) with an argument.
CREATE TYPE leased_task AS (name text, payload bytea, tag text, retry_count integer, lease_expires_at timestamptz);

-- The roles: <schema>_producer may add, <schema>_consumer may lease,
-- modify and delete (taskqueue_producer and taskqueue_consumer for the
-- default schema). NOLOGIN: applications log in as their own roles and are
-- granted membership. Roles belong to the cluster, not the schema: created
-- when missing; a migrating user who may not create roles gets a WARNING
-- and the migration goes on (docs/sql-api.md has the statements for an
-- administrator). The functions' grants are in their routine files.
DO $$
DECLARE
  s        text := current_schema();
  producer text := current_schema() || '_producer';
  consumer text := current_schema() || '_consumer';
  r        text;
BEGIN
  IF length(consumer) > 63 THEN
    RAISE WARNING 'taskqueue: schema name "%" is too long for role names "%"/"%"; roles not created, see docs/sql-api.md',
      s, producer, consumer;
    RETURN;
  END IF;
  FOREACH r IN ARRAY ARRAY[producer, consumer] LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
      BEGIN
        EXECUTE format('CREATE ROLE %I NOLOGIN', r);
      EXCEPTION
        WHEN insufficient_privilege THEN
          RAISE WARNING 'taskqueue: skipped creating role "%" (the migrating user may not create roles); an administrator can create and grant it as docs/sql-api.md shows', r;
        WHEN duplicate_object THEN
          NULL; -- created meanwhile by another migration of the same name
      END;
    END IF;
  END LOOP;
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = producer) THEN
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', s, producer);
  END IF;
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = consumer) THEN
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', s, consumer);
  END IF;
END
$$;
