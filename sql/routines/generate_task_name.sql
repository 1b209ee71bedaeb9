-- generate_task_name: a routine of the schema (docs/architecture.md, "SQL is the source of truth"):
-- migrate applies this file after the numbered migrations whenever its text changes.

-- One new name in the generated form: the batch's generator
-- (generate_task_names, generated from the form's one definition), so the
-- form is made in one place. It reads no table and calls only the
-- generator: no search_path of its own, and nobody but the owner calls it.
CREATE OR REPLACE FUNCTION generate_task_name() RETURNS text
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
  RETURN (generate_task_names(1))[1];
END
$$;
REVOKE ALL ON FUNCTION generate_task_name() FROM PUBLIC;
