-- leased_tasks: a view of the schema (docs/architecture.md, "SQL is the source of truth"):
-- migrate applies this file after the numbered migrations whenever its text changes.
-- First in sql/0009 (released; kept there as history, never edited).

-- Tasks under a lease that has not run out.
CREATE OR REPLACE VIEW leased_tasks AS
SELECT q.name                     AS queue,
       t.name                     AS task_name,
       t.tag,
       t.retry_count              AS lease_count,
       t.eta                      AS lease_expires_at,
       t.eta - now()              AS lease_remaining,
       t.enqueued_at,
       octet_length(t.payload)    AS payload_bytes
  FROM tasks t
  JOIN queues q ON q.id = t.queue_id
 WHERE t.eta > now() AND t.retry_count > 0;

COMMENT ON VIEW leased_tasks IS 'Tasks whose lease has not expired yet; lease_count is the task''s retry count.';
