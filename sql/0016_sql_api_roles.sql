-- 0016: the SQL API's roles.
--
-- <schema>_producer may add, <schema>_consumer may lease,
-- modify and delete (taskqueue_producer and taskqueue_consumer for the
-- default schema). NOLOGIN: applications log in as their own roles and are
-- granted membership. Roles belong to the cluster, not the schema: created
-- when missing; a migrating user who may not create roles gets a WARNING
-- and the migration goes on (docs/sql-api.md has the statements for an
-- administrator). The functions' grants are in their routine files.
--
-- Idempotent, so that it can run again: migrate() runs it again when it
-- takes over a development build's schema (src/store/migrate/unreleased-history.ts),
-- which may have been restored into a cluster without its roles.
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
