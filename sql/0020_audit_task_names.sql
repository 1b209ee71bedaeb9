-- 0020: the tasks an audit entry's action touched, by name.
--
-- A bulk operator action (delete, release, redrive, run now, over a
-- selection or "all matching a filter") wrote one entry saying only how
-- many. The entry now keeps the names too, in the entry itself: the first
-- 1,000 (AUDIT_NAMES_KEPT in src/core/audit-log.ts) in name order for one
-- statement, in the order the action went for one of several batches, and
-- `count` keeps the total.
--
-- Bounded, in the row, rather than every name in a side table: an entry is
-- written by the statement that does the action (one more CTE) and read by
-- the listing without a join, and an "all matching" run-now or redrive of a
-- million tasks would otherwise write a million audit rows, doubling the
-- action's cost in the log that is meant to be small. 1,000 names is what
-- one selection holds (LIMITS.maxTasksPerDelete), so a selection is named
-- in full; a filter's entry names its first 1,000 and counts the rest.
--
-- NULL: the action names no tasks (pause, resume, purge, export), or the
-- entry was written before this migration.
ALTER TABLE audit_log ADD COLUMN task_names text[];

COMMENT ON COLUMN audit_log.task_names IS 'The first 1,000 names of the tasks the action touched (count is the total); NULL when it names none.';
