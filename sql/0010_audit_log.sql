-- 0010: the operators' audit log.
--
-- Every operator action taken through the web console (pause, resume,
-- purge, delete a task, release a lease, redrive dead letters) is recorded
-- here: who did it, what, to which queue and task, when, and how many tasks
-- it touched. The queue is kept by name, not by id, so an entry still reads
-- right after the queue is removed from the configuration. Entries are
-- small and rare (one per operator action), so nothing expires them; an
-- operator who wants a retention can DELETE by `at`.

CREATE TABLE audit_log (
  id     bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at     timestamptz NOT NULL DEFAULT now(),
  -- The verified e-mail of the caller ('anonymous' when access control is off).
  actor  text        NOT NULL,
  -- pause, resume, purge, delete_task, release_lease, redrive.
  action text        NOT NULL,
  queue  text        NOT NULL,
  -- The task the action named, if it named one.
  target text,
  -- How many tasks (or dead letters) the action touched.
  count  integer     NOT NULL DEFAULT 0,
  -- Where the action came from (the console; other tools may add theirs).
  source text        NOT NULL DEFAULT 'console'
);

COMMENT ON TABLE audit_log IS 'Operator actions (pause, purge, redrive, ...): who, what, when, how many.';

-- Listing newest first reads the primary key backwards (ids grow with
-- time); one queue's entries, newest first:
CREATE INDEX audit_log_queue_idx ON audit_log (queue, id);
