-- 0013: samples of each queue's depth, for the console's depth chart.
--
-- Every server process with the console samples the queue overview every
-- few seconds and writes one row per queue here, into a time bucket of the
-- sampling interval: the primary key keeps one row per queue and bucket, so
-- several processes sampling at once share the rows (ON CONFLICT DO UPDATE:
-- the latest figures of the bucket win). The chart reads the last hour from here, so it covers the
-- whole hour after a restart and shows the same figures whichever process
-- serves the page. The sampler deletes rows older than an hour as it goes;
-- at one row per queue per 10 seconds that is 360 rows per queue.
--
-- The queue is kept by name, like audit_log: the console knows queues by
-- name, and the rows of a queue removed from the configuration age out.

CREATE TABLE queue_depth_samples (
  queue     text        NOT NULL,
  -- The start of the sampling bucket (database clock).
  at        timestamptz NOT NULL,
  available integer     NOT NULL,
  leased    integer     NOT NULL,
  delayed   integer     NOT NULL,
  PRIMARY KEY (queue, at)
);

-- The sampler's delete of rows past the hour.
CREATE INDEX queue_depth_samples_at_idx ON queue_depth_samples (at);

COMMENT ON TABLE queue_depth_samples IS 'Queue depth (available, leased, delayed) sampled for the console charts; the last hour is kept.';
