-- 0018: queue definitions have one owner and a revision; a retry limit of 0.
--
-- task_retry_limit 0 means what App Engine means: a push task is not
-- retried after its first attempt, a pull task is never leased (its first
-- lease attempt moves it to the dead letters). The service used to read 0
-- as unlimited (AppScale's reading), so a real queue.yaml with 0 retried
-- forever; 0 now reaches this column.
ALTER TABLE queues DROP CONSTRAINT queues_max_leases_check;
ALTER TABLE queues ADD CONSTRAINT queues_max_leases_check CHECK (max_leases >= 0);

-- The queue's whole definition as its owner wrote it (retry parameters,
-- ACL, App Engine target; never a process's own base URL), so a process
-- opened without a configuration serves exactly what the owner configured
-- instead of defaults. NULL on rows written before this migration.
ALTER TABLE queues ADD COLUMN definition jsonb;

-- One row per write of the definitions: the newest row is the truth every
-- process compares itself with. A process with no configuration reads the
-- queues; one whose configuration differs is refused, unless it owns them
-- (taskqueue serve, taskqueue config sync, openTaskQueue({ ownQueues })),
-- and an owner whose configuration is an earlier revision's (an old
-- instance restarting during a rolling deploy) is refused too, unless
-- forced (docs/operations.md, "Who writes the queue definitions").
-- A process that notices a newer revision than the one it serves stops
-- dispatching and reports itself not ready.
CREATE TABLE queue_definitions (
  revision     bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- sha256 of the definitions in a canonical form (src/core/queue-definitions.ts).
  fingerprint  text        NOT NULL,
  -- Where the configuration came from (a file path, built-in), for messages.
  source       text        NOT NULL,
  admin_emails text[]      NOT NULL DEFAULT '{}',
  written_at   timestamptz NOT NULL DEFAULT now()
);

COMMENT ON TABLE queue_definitions IS 'Each write of the queue definitions; the newest revision is the one every process serves.';
