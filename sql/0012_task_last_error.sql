-- 0012: a task's last error.
--
-- A worker whose handler fails hands the task back with a lease set to the
-- queue's backoff delay and the error's message (cut to 1000 characters by
-- the core), so whoever looks at the task (getTask, listTasks, the console,
-- the CLI) sees why it keeps coming back. When the retry limit drops the
-- task, the lease statement copies the message into its dead letter.
-- Nullable without a default: adding the columns rewrites no rows.

ALTER TABLE tasks ADD COLUMN last_error text;
ALTER TABLE task_dead_letters ADD COLUMN last_error text;

COMMENT ON COLUMN tasks.last_error IS 'The message of the last failure a worker reported for this task; NULL when none.';
COMMENT ON COLUMN task_dead_letters.last_error IS 'The task''s last reported failure when the retry limit dropped it.';
