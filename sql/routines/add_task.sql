-- GENERATED from src/store/sql-api/sql-api-add-function.ts by `npm run generate:sql-api`: do not edit by hand.

DO $$
BEGIN
  EXECUTE format($f$
    CREATE OR REPLACE FUNCTION add_task(queue text, payload bytea, name text DEFAULT NULL, tag text DEFAULT NULL,
                                        eta timestamptz DEFAULT NULL)
    RETURNS text
    LANGUAGE sql VOLATILE SECURITY INVOKER
    AS 'SELECT (%I.add_tasks(queue, ARRAY[payload], ARRAY[name], ARRAY[tag], ARRAY[eta]))[1]'
  $f$, current_schema());
END
$$;

-- Nobody but the owner calls it unless granted (docs/sql-api.md, roles).
REVOKE ALL ON FUNCTION add_task(text, bytea, text, text, timestamptz) FROM PUBLIC;
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = current_schema() || '_producer') THEN
    EXECUTE format('GRANT EXECUTE ON FUNCTION %I.add_task(text, bytea, text, text, timestamptz) TO %I', current_schema(), current_schema() || '_producer');
  END IF;
END
$$;
