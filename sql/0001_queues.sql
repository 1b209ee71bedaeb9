-- 0001: queues.
--
-- One row per queue ever named in the configuration. The service writes the
-- current configuration here at start-up (it is the source of truth, not this
-- table), so operators can read queue settings with SQL and so triggers can
-- enforce limits that hold for every process sharing the database.
-- Queues removed from the configuration keep their row (active = false) and
-- their tasks; they just stop serving.

CREATE TABLE queues (
  id                  integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name                text        NOT NULL UNIQUE,
  mode                text        NOT NULL CHECK (mode IN ('pull', 'push')),
  -- task-retry-limit: a task may be leased at most this many times; NULL = unlimited.
  max_leases          integer     CHECK (max_leases > 0),
  -- Extension <storage-limit>: bytes this queue's tasks may occupy; NULL = none.
  storage_limit_bytes bigint      CHECK (storage_limit_bytes >= 0),
  -- Extension <lease-rate>: lease calls that may return tasks per window; NULL = unlimited.
  lease_rate_calls    integer     CHECK (lease_rate_calls > 0),
  lease_rate_seconds  integer     CHECK (lease_rate_seconds > 0),
  active              boolean     NOT NULL DEFAULT true,
  updated_at          timestamptz NOT NULL DEFAULT now()
);

COMMENT ON TABLE queues IS 'Queues from queue.xml/queue.yaml, written by the service at start-up.';

-- Settings that belong to the whole service rather than one queue
-- (today only the root <total-storage-limit>).
CREATE TABLE service_settings (
  name  text   PRIMARY KEY,
  value bigint
);

COMMENT ON TABLE service_settings IS 'Service-wide limits, e.g. total_storage_limit_bytes (NULL = none).';
