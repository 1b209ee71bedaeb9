-- 0008: drop the foreign keys from per-task rows to queues.
--
-- Every inserted task and tombstone paid a referential-integrity check: a
-- SELECT ... FOR KEY SHARE on its queue's one row. Under concurrent adds and
-- deletes of one queue those share locks pile up on that row (multixacts),
-- and the checks cost about 10% of a delete of 100 tasks. The rows they
-- protect are never deleted: queues removed from the configuration are only
-- marked inactive (sync-queues.ts), and nothing deletes from queues. So the
-- constraint guarded against nothing that can happen.

ALTER TABLE tasks DROP CONSTRAINT tasks_queue_id_fkey;
ALTER TABLE task_tombstones DROP CONSTRAINT task_tombstones_queue_id_fkey;
ALTER TABLE queue_storage DROP CONSTRAINT queue_storage_queue_id_fkey;

COMMENT ON COLUMN tasks.queue_id IS 'queues.id; rows of queues are never deleted (see sql/0008).';
