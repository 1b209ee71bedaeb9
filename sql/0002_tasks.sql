-- 0002: tasks.
--
-- One row per live task. A single column, eta, is both "available from" and
-- "lease expires" (the App Engine model): a task can be leased when
-- eta <= now(), and leasing moves eta to now() + lease. So one index on
-- (queue_id, eta) finds every leasable task, and no state column, expiry
-- sweeper or second index is needed.

CREATE TABLE tasks (
  -- queues.id. No foreign key: queue rows are never deleted (removed queues
  -- are only marked inactive), and a key's per-row check took a share lock on
  -- the queue's one row for every add and cost ~10% of a delete.
  queue_id    integer     NOT NULL,
  -- Compared byte by byte (COLLATE "C"): names are ASCII by rule, and every
  -- lease, delete and tombstone check probes the primary key by name.
  name        text        COLLATE "C" NOT NULL CHECK (name ~ '^[a-zA-Z0-9_-]+$' AND length(name) <= 500),
  eta         timestamptz NOT NULL,
  -- Leases so far: 1 after the first lease. Compared with queues.max_leases.
  retry_count integer     NOT NULL DEFAULT 0 CHECK (retry_count >= 0),
  tag         text        COLLATE "C" CHECK (octet_length(tag) <= 500),
  payload     bytea       NOT NULL CHECK (octet_length(payload) <= 1048576),
  enqueued_at timestamptz NOT NULL DEFAULT now(),
  -- What the task counts against storage limits: payload, name and tag bytes.
  size_bytes  integer     GENERATED ALWAYS AS
                (octet_length(payload) + octet_length(name) + coalesce(octet_length(tag), 0)) STORED,
  PRIMARY KEY (queue_id, name)
) WITH (
  -- Leases rewrite eta, an indexed column, so they are never HOT updates;
  -- spare room keeps the new row version on the same page, and vacuum runs
  -- on a fixed number of dead rows rather than a fraction of a table whose
  -- size swings (a drained queue is small, a backlog is large).
  fillfactor = 85,
  autovacuum_vacuum_scale_factor = 0,
  autovacuum_vacuum_threshold = 5000,
  autovacuum_vacuum_insert_scale_factor = 0,
  autovacuum_vacuum_insert_threshold = 20000,
  autovacuum_analyze_scale_factor = 0.02,
  autovacuum_vacuum_cost_limit = 2000
);

COMMENT ON TABLE tasks IS 'Live tasks. eta is when the task becomes leasable: its schedule time, or its lease expiry while leased.';
COMMENT ON COLUMN tasks.eta IS 'Available from (eta <= now()) or, while leased, lease expiry. Also the lease token.';

-- The lease index: equality on queue, then exactly the ORDER BY column, so
-- LIMIT n stops after n locked rows instead of sorting every eligible row.
CREATE INDEX tasks_lease_idx ON tasks (queue_id, eta);

-- Lease by tag: same shape, one more equality column. Untagged tasks are not
-- indexed here; "only untagged tasks" leases use tasks_lease_idx with a filter.
CREATE INDEX tasks_tag_lease_idx ON tasks (queue_id, tag, eta) WHERE tag IS NOT NULL;
