-- 0009: compare task names and tags byte by byte (COLLATE "C").
--
-- Names match ^[a-zA-Z0-9_-]+$ and tags are opaque labels: nothing about them
-- is language-sensitive, yet under the database's default collation every
-- primary-key probe (each lease, delete and tombstone check touches one per
-- task) compared them through the locale library. "C" compares bytes and
-- lets btree use abbreviated keys. PostgreSQL does not allow changing the type
-- of a column a generated column reads, so size_bytes (and the trigger that
-- watches it) is dropped and created again around the change.

DROP TRIGGER tasks_after_resize ON tasks;
ALTER TABLE tasks DROP COLUMN size_bytes;

ALTER TABLE tasks ALTER COLUMN name TYPE text COLLATE "C";
ALTER TABLE tasks ALTER COLUMN tag TYPE text COLLATE "C";
ALTER TABLE task_tombstones ALTER COLUMN name TYPE text COLLATE "C";

ALTER TABLE tasks ADD COLUMN size_bytes integer GENERATED ALWAYS AS
  (octet_length(payload) + octet_length(name) + coalesce(octet_length(tag), 0)) STORED;

CREATE TRIGGER tasks_after_resize
AFTER UPDATE OF tag, payload ON tasks
FOR EACH ROW WHEN (OLD.size_bytes IS DISTINCT FROM NEW.size_bytes)
EXECUTE FUNCTION tasks_after_resize();
