-- dead_letters_after_insert: a routine of the schema (docs/architecture.md, "SQL is the source of truth"):
-- migrate applies this file after the numbered migrations whenever its text changes.

CREATE OR REPLACE FUNCTION dead_letters_after_insert() RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT queue_id, count(*) AS n FROM new_dead_letters GROUP BY queue_id LOOP
    INSERT INTO dead_letter_counts AS c (queue_id, shard, dead_letters)
    VALUES (r.queue_id, (pg_backend_pid() % 32)::smallint, r.n)
    ON CONFLICT (queue_id, shard) DO UPDATE SET dead_letters = c.dead_letters + excluded.dead_letters;
  END LOOP;
  RETURN NULL;
END
$$;

-- The fixed search_path of the schema's functions (this schema, pg_catalog, pg_temp last:
-- a caller's temporary table must not stand in for one of ours; docs/sql-api.md).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION dead_letters_after_insert() SET search_path = %I, pg_catalog, pg_temp', current_schema());
END
$$;
REVOKE ALL ON FUNCTION dead_letters_after_insert() FROM PUBLIC;

CREATE OR REPLACE TRIGGER dead_letters_after_insert
AFTER INSERT ON task_dead_letters
REFERENCING NEW TABLE AS new_dead_letters
FOR EACH STATEMENT EXECUTE FUNCTION dead_letters_after_insert();
