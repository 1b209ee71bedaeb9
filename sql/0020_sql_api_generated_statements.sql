-- 0020: lease_tasks, modify_lease and delete_tasks generated from the
-- service's own statements.
--
-- Until now these functions (0015, 0017) were second, hand-written copies
-- of the service's lease, modify and delete (src/store/lease-tasks.ts,
-- modify-lease.ts, delete-tasks.ts): the pause, the lease rate, the retry
-- limit with its tombstones and dead letters, the payload budget, the
-- statistics, the fencing by lease token and which deleted names get a
-- tombstone row, each written twice and kept together only by the
-- behaviour suite. From here each function's statements are the text the
-- service's builder emits for each shape (for the lease: rate or none,
-- retry limit or none, any task / one tag / the oldest task's tag, payload
-- budget that can bind or not; for the delete: every name held by its form
-- or not), with the function's variables in the places of the service's
-- bound values; the limits checked on their arguments (1000 tasks, one
-- week, 500-byte tags, the 32 MB budget, 1000 names) are written from
-- src/core/limits.ts. The text below is generated (`npm run
-- generate:sql-api`), and test/sql-api/generated-functions.test.ts fails
-- when a builder and the newest migration defining its function differ, so
-- a change to the service's statements needs a migration that carries it.
--
-- add_tasks keeps 0017's body, with the limits it checks (batch size, name
-- characters and length, payload and tag size, ETA horizon) written from
-- src/core/limits.ts and src/core/task.ts. The horizon is now exactly 30
-- times 24 hours ('2592000 seconds'), as the service's insert measures it,
-- not '30 days', which in a session time zone with a daylight-saving change
-- ahead is an hour more or less.
--
-- Behaviour is otherwise unchanged (the behaviour suite runs one set of expectations
-- through the in-process API and through the functions): a paused queue
-- still raises QUEUE_PAUSED (TQ014), now from the lease statement's own
-- reading of the pause, after which the statement has changed nothing.

-- BEGIN GENERATED lease_tasks (src/store/sql-api-functions.ts; do not edit)
CREATE OR REPLACE FUNCTION lease_tasks(queue text, max_tasks integer, lease_seconds integer, tag text DEFAULT NULL,
                            group_by_tag boolean DEFAULT false)
RETURNS SETOF leased_task
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
AS $$
#variable_conflict use_column
DECLARE
  q              queues;
  r              record;
  v_out          leased_task;
  v_queue_id     integer;
  v_max_tasks    integer := lease_tasks.max_tasks;
  v_lease_ms     float8 := lease_tasks.lease_seconds * 1000.0;
  v_tag          text := nullif(lease_tasks.tag, '');
  v_group        boolean := coalesce(lease_tasks.group_by_tag, false);
  v_rate_seconds integer;
  v_rate_calls   integer;
  v_max_leases   integer;
  v_budget_binds boolean;
  v_paused       boolean := false;
BEGIN
  SELECT * INTO q FROM queues WHERE queues.name = queue AND queues.active AND queues.mode = 'pull';
  IF NOT FOUND THEN
    q := sql_api_queue(queue, true, 'lease');  -- raises the error that fits
  END IF;
  IF v_max_tasks IS NULL OR v_max_tasks < 1 OR v_max_tasks > 1000 THEN
    RAISE EXCEPTION 'max_tasks: must be from 1 to 1000, got %', coalesce(v_max_tasks::text, 'NULL')
      USING ERRCODE = 'TQ015', DETAIL = coalesce(v_max_tasks::text, ''), HINT = 'INVALID_REQUEST';
  END IF;
  IF lease_seconds IS NULL OR lease_seconds < 0 OR lease_seconds > 604800 THEN
    RAISE EXCEPTION 'lease_seconds: a lease lasts 0 to 604800 seconds (one week), got %', coalesce(lease_seconds::text, 'NULL')
      USING ERRCODE = 'TQ015', DETAIL = coalesce(lease_seconds::text, ''), HINT = 'INVALID_REQUEST';
  END IF;
  IF octet_length(v_tag) > 500 THEN
    RAISE EXCEPTION 'tag size: tag must be <= 500 bytes, got a % byte tag', octet_length(v_tag)
      USING ERRCODE = 'TQ007', DETAIL = left(v_tag, 500), HINT = 'INVALID_TAG';
  END IF;
  v_queue_id := q.id;
  v_rate_seconds := q.lease_rate_seconds;
  v_rate_calls := CASE WHEN q.lease_rate_seconds IS NOT NULL THEN q.lease_rate_calls END;
  v_max_leases := q.max_leases;
  -- As the service's leaseShapeOf: the running sum only where the budget could bind.
  v_budget_binds := v_max_tasks::int8 * 1048576 > 33554432;

  -- The service's lease statement of each shape (src/store/lease-tasks.ts
  -- explains each step), generated from its builder: one branch per shape,
  -- so each statement keeps its own plan, as the service's prepared ones do.
  IF v_tag IS NULL AND NOT v_group AND v_rate_calls IS NULL AND v_max_leases IS NULL AND NOT v_budget_binds THEN
    FOR r IN
      /* lease_tasks */
          with queue_state as materialized (
          select coalesce((select paused from "queues" where id = v_queue_id), false) as paused
        ),
      picked as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now()  and not (select paused from queue_state)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      fitting as (select name, eta from picked ),
      leased as (
          update "tasks" t
             set eta = now() + (v_lease_ms::float8 * interval '1 millisecond'),
                 retry_count = t.retry_count + 1
            from fitting f
           where t.queue_id = v_queue_id and t.name = f.name
          returning t.name, t.tag, t.payload, t.retry_count, t.eta, t.enqueued_at, t.last_error, f.eta as available_at
        ),
      history as (
          insert into "lease_history" (queue_id, task_count)
          select v_queue_id, count(*) from leased having count(*) > 0
        ),
      outcome as (
          select (select paused from queue_state) as paused, 0::int8 as dead_lettered
        )
          select o.paused, o.dead_lettered, l.name, l.tag, l.payload, l.retry_count, l.last_error,
                 (extract(epoch from (l.eta - timestamptz 'epoch')) * 1000000)::int8 as eta_usec, (extract(epoch from (l.enqueued_at - timestamptz 'epoch')) * 1000000)::int8 as enqueued_usec
            from outcome o left join leased l on true
           order by l.available_at
    LOOP
      v_paused := r.paused;
      CONTINUE WHEN r.name IS NULL;
      v_out := (r.name, r.payload, r.tag, r.retry_count, timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond');
      RETURN NEXT v_out;
    END LOOP;
  ELSIF v_tag IS NULL AND NOT v_group AND v_rate_calls IS NULL AND v_max_leases IS NULL AND v_budget_binds THEN
    FOR r IN
      /* lease_tasks */
          with queue_state as materialized (
          select coalesce((select paused from "queues" where id = v_queue_id), false) as paused
        ),
      picked as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now()  and not (select paused from queue_state)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      fitting as (
            select name, eta from (
              select name, eta,
                     sum(payload_bytes) over (order by eta rows unbounded preceding) as running_bytes
                from picked 
            ) f
            where running_bytes <= 33554432::int8
          ),
      leased as (
          update "tasks" t
             set eta = now() + (v_lease_ms::float8 * interval '1 millisecond'),
                 retry_count = t.retry_count + 1
            from fitting f
           where t.queue_id = v_queue_id and t.name = f.name
          returning t.name, t.tag, t.payload, t.retry_count, t.eta, t.enqueued_at, t.last_error, f.eta as available_at
        ),
      history as (
          insert into "lease_history" (queue_id, task_count)
          select v_queue_id, count(*) from leased having count(*) > 0
        ),
      outcome as (
          select (select paused from queue_state) as paused, 0::int8 as dead_lettered
        )
          select o.paused, o.dead_lettered, l.name, l.tag, l.payload, l.retry_count, l.last_error,
                 (extract(epoch from (l.eta - timestamptz 'epoch')) * 1000000)::int8 as eta_usec, (extract(epoch from (l.enqueued_at - timestamptz 'epoch')) * 1000000)::int8 as enqueued_usec
            from outcome o left join leased l on true
           order by l.available_at
    LOOP
      v_paused := r.paused;
      CONTINUE WHEN r.name IS NULL;
      v_out := (r.name, r.payload, r.tag, r.retry_count, timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond');
      RETURN NEXT v_out;
    END LOOP;
  ELSIF v_tag IS NULL AND NOT v_group AND v_rate_calls IS NULL AND v_max_leases IS NOT NULL AND NOT v_budget_binds THEN
    FOR r IN
      /* lease_tasks */
          with queue_state as materialized (
          select coalesce((select paused from "queues" where id = v_queue_id), false) as paused
        ),
      picked as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now()  and not (select paused from queue_state)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      exhausted as (
            delete from "tasks" t using picked p
             where t.queue_id = v_queue_id and t.name = p.name and p.retry_count >= v_max_leases::int4
            returning t.name, t.tag, t.payload, t.retry_count, t.enqueued_at, t.last_error
          ),
      tombstoned as (
            insert into "task_tombstones" (queue_id, name, reason, retry_count)
            select v_queue_id, name, 'retry_limit', retry_count from exhausted
            on conflict (queue_id, name) do update
              set deleted_at = excluded.deleted_at, reason = excluded.reason, retry_count = excluded.retry_count
          ),
      dead as (
            insert into "task_dead_letters" (queue_id, name, tag, payload, retry_count, enqueued_at, last_error)
            select v_queue_id, name, tag, payload, retry_count, enqueued_at, last_error from exhausted
            on conflict (queue_id, name) do update
              set tag = excluded.tag, payload = excluded.payload, retry_count = excluded.retry_count,
                  enqueued_at = excluded.enqueued_at, died_at = excluded.died_at, last_error = excluded.last_error
            returning 1
          ),
      fitting as (select name, eta from picked where retry_count < v_max_leases::int4),
      leased as (
          update "tasks" t
             set eta = now() + (v_lease_ms::float8 * interval '1 millisecond'),
                 retry_count = t.retry_count + 1
            from fitting f
           where t.queue_id = v_queue_id and t.name = f.name
          returning t.name, t.tag, t.payload, t.retry_count, t.eta, t.enqueued_at, t.last_error, f.eta as available_at
        ),
      history as (
          insert into "lease_history" (queue_id, task_count)
          select v_queue_id, count(*) from leased having count(*) > 0
        ),
      outcome as (
          select (select paused from queue_state) as paused, (select count(*) from dead)::int8 as dead_lettered
        )
          select o.paused, o.dead_lettered, l.name, l.tag, l.payload, l.retry_count, l.last_error,
                 (extract(epoch from (l.eta - timestamptz 'epoch')) * 1000000)::int8 as eta_usec, (extract(epoch from (l.enqueued_at - timestamptz 'epoch')) * 1000000)::int8 as enqueued_usec
            from outcome o left join leased l on true
           order by l.available_at
    LOOP
      v_paused := r.paused;
      CONTINUE WHEN r.name IS NULL;
      v_out := (r.name, r.payload, r.tag, r.retry_count, timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond');
      RETURN NEXT v_out;
    END LOOP;
  ELSIF v_tag IS NULL AND NOT v_group AND v_rate_calls IS NULL AND v_max_leases IS NOT NULL AND v_budget_binds THEN
    FOR r IN
      /* lease_tasks */
          with queue_state as materialized (
          select coalesce((select paused from "queues" where id = v_queue_id), false) as paused
        ),
      picked as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now()  and not (select paused from queue_state)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      exhausted as (
            delete from "tasks" t using picked p
             where t.queue_id = v_queue_id and t.name = p.name and p.retry_count >= v_max_leases::int4
            returning t.name, t.tag, t.payload, t.retry_count, t.enqueued_at, t.last_error
          ),
      tombstoned as (
            insert into "task_tombstones" (queue_id, name, reason, retry_count)
            select v_queue_id, name, 'retry_limit', retry_count from exhausted
            on conflict (queue_id, name) do update
              set deleted_at = excluded.deleted_at, reason = excluded.reason, retry_count = excluded.retry_count
          ),
      dead as (
            insert into "task_dead_letters" (queue_id, name, tag, payload, retry_count, enqueued_at, last_error)
            select v_queue_id, name, tag, payload, retry_count, enqueued_at, last_error from exhausted
            on conflict (queue_id, name) do update
              set tag = excluded.tag, payload = excluded.payload, retry_count = excluded.retry_count,
                  enqueued_at = excluded.enqueued_at, died_at = excluded.died_at, last_error = excluded.last_error
            returning 1
          ),
      fitting as (
            select name, eta from (
              select name, eta,
                     sum(payload_bytes) over (order by eta rows unbounded preceding) as running_bytes
                from picked where retry_count < v_max_leases::int4
            ) f
            where running_bytes <= 33554432::int8
          ),
      leased as (
          update "tasks" t
             set eta = now() + (v_lease_ms::float8 * interval '1 millisecond'),
                 retry_count = t.retry_count + 1
            from fitting f
           where t.queue_id = v_queue_id and t.name = f.name
          returning t.name, t.tag, t.payload, t.retry_count, t.eta, t.enqueued_at, t.last_error, f.eta as available_at
        ),
      history as (
          insert into "lease_history" (queue_id, task_count)
          select v_queue_id, count(*) from leased having count(*) > 0
        ),
      outcome as (
          select (select paused from queue_state) as paused, (select count(*) from dead)::int8 as dead_lettered
        )
          select o.paused, o.dead_lettered, l.name, l.tag, l.payload, l.retry_count, l.last_error,
                 (extract(epoch from (l.eta - timestamptz 'epoch')) * 1000000)::int8 as eta_usec, (extract(epoch from (l.enqueued_at - timestamptz 'epoch')) * 1000000)::int8 as enqueued_usec
            from outcome o left join leased l on true
           order by l.available_at
    LOOP
      v_paused := r.paused;
      CONTINUE WHEN r.name IS NULL;
      v_out := (r.name, r.payload, r.tag, r.retry_count, timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond');
      RETURN NEXT v_out;
    END LOOP;
  ELSIF v_tag IS NULL AND NOT v_group AND v_rate_calls IS NOT NULL AND v_max_leases IS NULL AND NOT v_budget_binds THEN
    FOR r IN
      /* lease_tasks */
          with queue_state as materialized (
          select coalesce((select paused from "queues" where id = v_queue_id), false) as paused
        ),
      permit as (
            insert into "lease_rate_windows" as w (queue_id, window_start, calls)
            select v_queue_id, floor(extract(epoch from now()) / v_rate_seconds::int4)::int8, 1
             where not (select paused from queue_state)
            on conflict (queue_id) do update
              set calls = case when w.window_start = excluded.window_start then w.calls + 1 else 1 end,
                  window_start = excluded.window_start
            returning calls <= v_rate_calls::int4 as allowed
          ),
      picked as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now()  and (select allowed from permit)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      fitting as (select name, eta from picked ),
      leased as (
          update "tasks" t
             set eta = now() + (v_lease_ms::float8 * interval '1 millisecond'),
                 retry_count = t.retry_count + 1
            from fitting f
           where t.queue_id = v_queue_id and t.name = f.name
          returning t.name, t.tag, t.payload, t.retry_count, t.eta, t.enqueued_at, t.last_error, f.eta as available_at
        ),
      history as (
          insert into "lease_history" (queue_id, task_count)
          select v_queue_id, count(*) from leased having count(*) > 0
        ),
      outcome as (
          select (select paused from queue_state) as paused, 0::int8 as dead_lettered
        )
          select o.paused, o.dead_lettered, l.name, l.tag, l.payload, l.retry_count, l.last_error,
                 (extract(epoch from (l.eta - timestamptz 'epoch')) * 1000000)::int8 as eta_usec, (extract(epoch from (l.enqueued_at - timestamptz 'epoch')) * 1000000)::int8 as enqueued_usec
            from outcome o left join leased l on true
           order by l.available_at
    LOOP
      v_paused := r.paused;
      CONTINUE WHEN r.name IS NULL;
      v_out := (r.name, r.payload, r.tag, r.retry_count, timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond');
      RETURN NEXT v_out;
    END LOOP;
  ELSIF v_tag IS NULL AND NOT v_group AND v_rate_calls IS NOT NULL AND v_max_leases IS NULL AND v_budget_binds THEN
    FOR r IN
      /* lease_tasks */
          with queue_state as materialized (
          select coalesce((select paused from "queues" where id = v_queue_id), false) as paused
        ),
      permit as (
            insert into "lease_rate_windows" as w (queue_id, window_start, calls)
            select v_queue_id, floor(extract(epoch from now()) / v_rate_seconds::int4)::int8, 1
             where not (select paused from queue_state)
            on conflict (queue_id) do update
              set calls = case when w.window_start = excluded.window_start then w.calls + 1 else 1 end,
                  window_start = excluded.window_start
            returning calls <= v_rate_calls::int4 as allowed
          ),
      picked as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now()  and (select allowed from permit)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      fitting as (
            select name, eta from (
              select name, eta,
                     sum(payload_bytes) over (order by eta rows unbounded preceding) as running_bytes
                from picked 
            ) f
            where running_bytes <= 33554432::int8
          ),
      leased as (
          update "tasks" t
             set eta = now() + (v_lease_ms::float8 * interval '1 millisecond'),
                 retry_count = t.retry_count + 1
            from fitting f
           where t.queue_id = v_queue_id and t.name = f.name
          returning t.name, t.tag, t.payload, t.retry_count, t.eta, t.enqueued_at, t.last_error, f.eta as available_at
        ),
      history as (
          insert into "lease_history" (queue_id, task_count)
          select v_queue_id, count(*) from leased having count(*) > 0
        ),
      outcome as (
          select (select paused from queue_state) as paused, 0::int8 as dead_lettered
        )
          select o.paused, o.dead_lettered, l.name, l.tag, l.payload, l.retry_count, l.last_error,
                 (extract(epoch from (l.eta - timestamptz 'epoch')) * 1000000)::int8 as eta_usec, (extract(epoch from (l.enqueued_at - timestamptz 'epoch')) * 1000000)::int8 as enqueued_usec
            from outcome o left join leased l on true
           order by l.available_at
    LOOP
      v_paused := r.paused;
      CONTINUE WHEN r.name IS NULL;
      v_out := (r.name, r.payload, r.tag, r.retry_count, timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond');
      RETURN NEXT v_out;
    END LOOP;
  ELSIF v_tag IS NULL AND NOT v_group AND v_rate_calls IS NOT NULL AND v_max_leases IS NOT NULL AND NOT v_budget_binds THEN
    FOR r IN
      /* lease_tasks */
          with queue_state as materialized (
          select coalesce((select paused from "queues" where id = v_queue_id), false) as paused
        ),
      permit as (
            insert into "lease_rate_windows" as w (queue_id, window_start, calls)
            select v_queue_id, floor(extract(epoch from now()) / v_rate_seconds::int4)::int8, 1
             where not (select paused from queue_state)
            on conflict (queue_id) do update
              set calls = case when w.window_start = excluded.window_start then w.calls + 1 else 1 end,
                  window_start = excluded.window_start
            returning calls <= v_rate_calls::int4 as allowed
          ),
      picked as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now()  and (select allowed from permit)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      exhausted as (
            delete from "tasks" t using picked p
             where t.queue_id = v_queue_id and t.name = p.name and p.retry_count >= v_max_leases::int4
            returning t.name, t.tag, t.payload, t.retry_count, t.enqueued_at, t.last_error
          ),
      tombstoned as (
            insert into "task_tombstones" (queue_id, name, reason, retry_count)
            select v_queue_id, name, 'retry_limit', retry_count from exhausted
            on conflict (queue_id, name) do update
              set deleted_at = excluded.deleted_at, reason = excluded.reason, retry_count = excluded.retry_count
          ),
      dead as (
            insert into "task_dead_letters" (queue_id, name, tag, payload, retry_count, enqueued_at, last_error)
            select v_queue_id, name, tag, payload, retry_count, enqueued_at, last_error from exhausted
            on conflict (queue_id, name) do update
              set tag = excluded.tag, payload = excluded.payload, retry_count = excluded.retry_count,
                  enqueued_at = excluded.enqueued_at, died_at = excluded.died_at, last_error = excluded.last_error
            returning 1
          ),
      fitting as (select name, eta from picked where retry_count < v_max_leases::int4),
      leased as (
          update "tasks" t
             set eta = now() + (v_lease_ms::float8 * interval '1 millisecond'),
                 retry_count = t.retry_count + 1
            from fitting f
           where t.queue_id = v_queue_id and t.name = f.name
          returning t.name, t.tag, t.payload, t.retry_count, t.eta, t.enqueued_at, t.last_error, f.eta as available_at
        ),
      history as (
          insert into "lease_history" (queue_id, task_count)
          select v_queue_id, count(*) from leased having count(*) > 0
        ),
      outcome as (
          select (select paused from queue_state) as paused, (select count(*) from dead)::int8 as dead_lettered
        )
          select o.paused, o.dead_lettered, l.name, l.tag, l.payload, l.retry_count, l.last_error,
                 (extract(epoch from (l.eta - timestamptz 'epoch')) * 1000000)::int8 as eta_usec, (extract(epoch from (l.enqueued_at - timestamptz 'epoch')) * 1000000)::int8 as enqueued_usec
            from outcome o left join leased l on true
           order by l.available_at
    LOOP
      v_paused := r.paused;
      CONTINUE WHEN r.name IS NULL;
      v_out := (r.name, r.payload, r.tag, r.retry_count, timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond');
      RETURN NEXT v_out;
    END LOOP;
  ELSIF v_tag IS NULL AND NOT v_group AND v_rate_calls IS NOT NULL AND v_max_leases IS NOT NULL AND v_budget_binds THEN
    FOR r IN
      /* lease_tasks */
          with queue_state as materialized (
          select coalesce((select paused from "queues" where id = v_queue_id), false) as paused
        ),
      permit as (
            insert into "lease_rate_windows" as w (queue_id, window_start, calls)
            select v_queue_id, floor(extract(epoch from now()) / v_rate_seconds::int4)::int8, 1
             where not (select paused from queue_state)
            on conflict (queue_id) do update
              set calls = case when w.window_start = excluded.window_start then w.calls + 1 else 1 end,
                  window_start = excluded.window_start
            returning calls <= v_rate_calls::int4 as allowed
          ),
      picked as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now()  and (select allowed from permit)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      exhausted as (
            delete from "tasks" t using picked p
             where t.queue_id = v_queue_id and t.name = p.name and p.retry_count >= v_max_leases::int4
            returning t.name, t.tag, t.payload, t.retry_count, t.enqueued_at, t.last_error
          ),
      tombstoned as (
            insert into "task_tombstones" (queue_id, name, reason, retry_count)
            select v_queue_id, name, 'retry_limit', retry_count from exhausted
            on conflict (queue_id, name) do update
              set deleted_at = excluded.deleted_at, reason = excluded.reason, retry_count = excluded.retry_count
          ),
      dead as (
            insert into "task_dead_letters" (queue_id, name, tag, payload, retry_count, enqueued_at, last_error)
            select v_queue_id, name, tag, payload, retry_count, enqueued_at, last_error from exhausted
            on conflict (queue_id, name) do update
              set tag = excluded.tag, payload = excluded.payload, retry_count = excluded.retry_count,
                  enqueued_at = excluded.enqueued_at, died_at = excluded.died_at, last_error = excluded.last_error
            returning 1
          ),
      fitting as (
            select name, eta from (
              select name, eta,
                     sum(payload_bytes) over (order by eta rows unbounded preceding) as running_bytes
                from picked where retry_count < v_max_leases::int4
            ) f
            where running_bytes <= 33554432::int8
          ),
      leased as (
          update "tasks" t
             set eta = now() + (v_lease_ms::float8 * interval '1 millisecond'),
                 retry_count = t.retry_count + 1
            from fitting f
           where t.queue_id = v_queue_id and t.name = f.name
          returning t.name, t.tag, t.payload, t.retry_count, t.eta, t.enqueued_at, t.last_error, f.eta as available_at
        ),
      history as (
          insert into "lease_history" (queue_id, task_count)
          select v_queue_id, count(*) from leased having count(*) > 0
        ),
      outcome as (
          select (select paused from queue_state) as paused, (select count(*) from dead)::int8 as dead_lettered
        )
          select o.paused, o.dead_lettered, l.name, l.tag, l.payload, l.retry_count, l.last_error,
                 (extract(epoch from (l.eta - timestamptz 'epoch')) * 1000000)::int8 as eta_usec, (extract(epoch from (l.enqueued_at - timestamptz 'epoch')) * 1000000)::int8 as enqueued_usec
            from outcome o left join leased l on true
           order by l.available_at
    LOOP
      v_paused := r.paused;
      CONTINUE WHEN r.name IS NULL;
      v_out := (r.name, r.payload, r.tag, r.retry_count, timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond');
      RETURN NEXT v_out;
    END LOOP;
  ELSIF v_tag IS NOT NULL AND v_rate_calls IS NULL AND v_max_leases IS NULL AND NOT v_budget_binds THEN
    FOR r IN
      /* lease_tasks */
          with queue_state as materialized (
          select coalesce((select paused from "queues" where id = v_queue_id), false) as paused
        ),
      picked as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now() and tag = v_tag and not (select paused from queue_state)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      fitting as (select name, eta from picked ),
      leased as (
          update "tasks" t
             set eta = now() + (v_lease_ms::float8 * interval '1 millisecond'),
                 retry_count = t.retry_count + 1
            from fitting f
           where t.queue_id = v_queue_id and t.name = f.name
          returning t.name, t.tag, t.payload, t.retry_count, t.eta, t.enqueued_at, t.last_error, f.eta as available_at
        ),
      history as (
          insert into "lease_history" (queue_id, task_count)
          select v_queue_id, count(*) from leased having count(*) > 0
        ),
      outcome as (
          select (select paused from queue_state) as paused, 0::int8 as dead_lettered
        )
          select o.paused, o.dead_lettered, l.name, l.tag, l.payload, l.retry_count, l.last_error,
                 (extract(epoch from (l.eta - timestamptz 'epoch')) * 1000000)::int8 as eta_usec, (extract(epoch from (l.enqueued_at - timestamptz 'epoch')) * 1000000)::int8 as enqueued_usec
            from outcome o left join leased l on true
           order by l.available_at
    LOOP
      v_paused := r.paused;
      CONTINUE WHEN r.name IS NULL;
      v_out := (r.name, r.payload, r.tag, r.retry_count, timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond');
      RETURN NEXT v_out;
    END LOOP;
  ELSIF v_tag IS NOT NULL AND v_rate_calls IS NULL AND v_max_leases IS NULL AND v_budget_binds THEN
    FOR r IN
      /* lease_tasks */
          with queue_state as materialized (
          select coalesce((select paused from "queues" where id = v_queue_id), false) as paused
        ),
      picked as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now() and tag = v_tag and not (select paused from queue_state)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      fitting as (
            select name, eta from (
              select name, eta,
                     sum(payload_bytes) over (order by eta rows unbounded preceding) as running_bytes
                from picked 
            ) f
            where running_bytes <= 33554432::int8
          ),
      leased as (
          update "tasks" t
             set eta = now() + (v_lease_ms::float8 * interval '1 millisecond'),
                 retry_count = t.retry_count + 1
            from fitting f
           where t.queue_id = v_queue_id and t.name = f.name
          returning t.name, t.tag, t.payload, t.retry_count, t.eta, t.enqueued_at, t.last_error, f.eta as available_at
        ),
      history as (
          insert into "lease_history" (queue_id, task_count)
          select v_queue_id, count(*) from leased having count(*) > 0
        ),
      outcome as (
          select (select paused from queue_state) as paused, 0::int8 as dead_lettered
        )
          select o.paused, o.dead_lettered, l.name, l.tag, l.payload, l.retry_count, l.last_error,
                 (extract(epoch from (l.eta - timestamptz 'epoch')) * 1000000)::int8 as eta_usec, (extract(epoch from (l.enqueued_at - timestamptz 'epoch')) * 1000000)::int8 as enqueued_usec
            from outcome o left join leased l on true
           order by l.available_at
    LOOP
      v_paused := r.paused;
      CONTINUE WHEN r.name IS NULL;
      v_out := (r.name, r.payload, r.tag, r.retry_count, timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond');
      RETURN NEXT v_out;
    END LOOP;
  ELSIF v_tag IS NOT NULL AND v_rate_calls IS NULL AND v_max_leases IS NOT NULL AND NOT v_budget_binds THEN
    FOR r IN
      /* lease_tasks */
          with queue_state as materialized (
          select coalesce((select paused from "queues" where id = v_queue_id), false) as paused
        ),
      picked as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now() and tag = v_tag and not (select paused from queue_state)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      exhausted as (
            delete from "tasks" t using picked p
             where t.queue_id = v_queue_id and t.name = p.name and p.retry_count >= v_max_leases::int4
            returning t.name, t.tag, t.payload, t.retry_count, t.enqueued_at, t.last_error
          ),
      tombstoned as (
            insert into "task_tombstones" (queue_id, name, reason, retry_count)
            select v_queue_id, name, 'retry_limit', retry_count from exhausted
            on conflict (queue_id, name) do update
              set deleted_at = excluded.deleted_at, reason = excluded.reason, retry_count = excluded.retry_count
          ),
      dead as (
            insert into "task_dead_letters" (queue_id, name, tag, payload, retry_count, enqueued_at, last_error)
            select v_queue_id, name, tag, payload, retry_count, enqueued_at, last_error from exhausted
            on conflict (queue_id, name) do update
              set tag = excluded.tag, payload = excluded.payload, retry_count = excluded.retry_count,
                  enqueued_at = excluded.enqueued_at, died_at = excluded.died_at, last_error = excluded.last_error
            returning 1
          ),
      fitting as (select name, eta from picked where retry_count < v_max_leases::int4),
      leased as (
          update "tasks" t
             set eta = now() + (v_lease_ms::float8 * interval '1 millisecond'),
                 retry_count = t.retry_count + 1
            from fitting f
           where t.queue_id = v_queue_id and t.name = f.name
          returning t.name, t.tag, t.payload, t.retry_count, t.eta, t.enqueued_at, t.last_error, f.eta as available_at
        ),
      history as (
          insert into "lease_history" (queue_id, task_count)
          select v_queue_id, count(*) from leased having count(*) > 0
        ),
      outcome as (
          select (select paused from queue_state) as paused, (select count(*) from dead)::int8 as dead_lettered
        )
          select o.paused, o.dead_lettered, l.name, l.tag, l.payload, l.retry_count, l.last_error,
                 (extract(epoch from (l.eta - timestamptz 'epoch')) * 1000000)::int8 as eta_usec, (extract(epoch from (l.enqueued_at - timestamptz 'epoch')) * 1000000)::int8 as enqueued_usec
            from outcome o left join leased l on true
           order by l.available_at
    LOOP
      v_paused := r.paused;
      CONTINUE WHEN r.name IS NULL;
      v_out := (r.name, r.payload, r.tag, r.retry_count, timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond');
      RETURN NEXT v_out;
    END LOOP;
  ELSIF v_tag IS NOT NULL AND v_rate_calls IS NULL AND v_max_leases IS NOT NULL AND v_budget_binds THEN
    FOR r IN
      /* lease_tasks */
          with queue_state as materialized (
          select coalesce((select paused from "queues" where id = v_queue_id), false) as paused
        ),
      picked as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now() and tag = v_tag and not (select paused from queue_state)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      exhausted as (
            delete from "tasks" t using picked p
             where t.queue_id = v_queue_id and t.name = p.name and p.retry_count >= v_max_leases::int4
            returning t.name, t.tag, t.payload, t.retry_count, t.enqueued_at, t.last_error
          ),
      tombstoned as (
            insert into "task_tombstones" (queue_id, name, reason, retry_count)
            select v_queue_id, name, 'retry_limit', retry_count from exhausted
            on conflict (queue_id, name) do update
              set deleted_at = excluded.deleted_at, reason = excluded.reason, retry_count = excluded.retry_count
          ),
      dead as (
            insert into "task_dead_letters" (queue_id, name, tag, payload, retry_count, enqueued_at, last_error)
            select v_queue_id, name, tag, payload, retry_count, enqueued_at, last_error from exhausted
            on conflict (queue_id, name) do update
              set tag = excluded.tag, payload = excluded.payload, retry_count = excluded.retry_count,
                  enqueued_at = excluded.enqueued_at, died_at = excluded.died_at, last_error = excluded.last_error
            returning 1
          ),
      fitting as (
            select name, eta from (
              select name, eta,
                     sum(payload_bytes) over (order by eta rows unbounded preceding) as running_bytes
                from picked where retry_count < v_max_leases::int4
            ) f
            where running_bytes <= 33554432::int8
          ),
      leased as (
          update "tasks" t
             set eta = now() + (v_lease_ms::float8 * interval '1 millisecond'),
                 retry_count = t.retry_count + 1
            from fitting f
           where t.queue_id = v_queue_id and t.name = f.name
          returning t.name, t.tag, t.payload, t.retry_count, t.eta, t.enqueued_at, t.last_error, f.eta as available_at
        ),
      history as (
          insert into "lease_history" (queue_id, task_count)
          select v_queue_id, count(*) from leased having count(*) > 0
        ),
      outcome as (
          select (select paused from queue_state) as paused, (select count(*) from dead)::int8 as dead_lettered
        )
          select o.paused, o.dead_lettered, l.name, l.tag, l.payload, l.retry_count, l.last_error,
                 (extract(epoch from (l.eta - timestamptz 'epoch')) * 1000000)::int8 as eta_usec, (extract(epoch from (l.enqueued_at - timestamptz 'epoch')) * 1000000)::int8 as enqueued_usec
            from outcome o left join leased l on true
           order by l.available_at
    LOOP
      v_paused := r.paused;
      CONTINUE WHEN r.name IS NULL;
      v_out := (r.name, r.payload, r.tag, r.retry_count, timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond');
      RETURN NEXT v_out;
    END LOOP;
  ELSIF v_tag IS NOT NULL AND v_rate_calls IS NOT NULL AND v_max_leases IS NULL AND NOT v_budget_binds THEN
    FOR r IN
      /* lease_tasks */
          with queue_state as materialized (
          select coalesce((select paused from "queues" where id = v_queue_id), false) as paused
        ),
      permit as (
            insert into "lease_rate_windows" as w (queue_id, window_start, calls)
            select v_queue_id, floor(extract(epoch from now()) / v_rate_seconds::int4)::int8, 1
             where not (select paused from queue_state)
            on conflict (queue_id) do update
              set calls = case when w.window_start = excluded.window_start then w.calls + 1 else 1 end,
                  window_start = excluded.window_start
            returning calls <= v_rate_calls::int4 as allowed
          ),
      picked as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now() and tag = v_tag and (select allowed from permit)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      fitting as (select name, eta from picked ),
      leased as (
          update "tasks" t
             set eta = now() + (v_lease_ms::float8 * interval '1 millisecond'),
                 retry_count = t.retry_count + 1
            from fitting f
           where t.queue_id = v_queue_id and t.name = f.name
          returning t.name, t.tag, t.payload, t.retry_count, t.eta, t.enqueued_at, t.last_error, f.eta as available_at
        ),
      history as (
          insert into "lease_history" (queue_id, task_count)
          select v_queue_id, count(*) from leased having count(*) > 0
        ),
      outcome as (
          select (select paused from queue_state) as paused, 0::int8 as dead_lettered
        )
          select o.paused, o.dead_lettered, l.name, l.tag, l.payload, l.retry_count, l.last_error,
                 (extract(epoch from (l.eta - timestamptz 'epoch')) * 1000000)::int8 as eta_usec, (extract(epoch from (l.enqueued_at - timestamptz 'epoch')) * 1000000)::int8 as enqueued_usec
            from outcome o left join leased l on true
           order by l.available_at
    LOOP
      v_paused := r.paused;
      CONTINUE WHEN r.name IS NULL;
      v_out := (r.name, r.payload, r.tag, r.retry_count, timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond');
      RETURN NEXT v_out;
    END LOOP;
  ELSIF v_tag IS NOT NULL AND v_rate_calls IS NOT NULL AND v_max_leases IS NULL AND v_budget_binds THEN
    FOR r IN
      /* lease_tasks */
          with queue_state as materialized (
          select coalesce((select paused from "queues" where id = v_queue_id), false) as paused
        ),
      permit as (
            insert into "lease_rate_windows" as w (queue_id, window_start, calls)
            select v_queue_id, floor(extract(epoch from now()) / v_rate_seconds::int4)::int8, 1
             where not (select paused from queue_state)
            on conflict (queue_id) do update
              set calls = case when w.window_start = excluded.window_start then w.calls + 1 else 1 end,
                  window_start = excluded.window_start
            returning calls <= v_rate_calls::int4 as allowed
          ),
      picked as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now() and tag = v_tag and (select allowed from permit)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      fitting as (
            select name, eta from (
              select name, eta,
                     sum(payload_bytes) over (order by eta rows unbounded preceding) as running_bytes
                from picked 
            ) f
            where running_bytes <= 33554432::int8
          ),
      leased as (
          update "tasks" t
             set eta = now() + (v_lease_ms::float8 * interval '1 millisecond'),
                 retry_count = t.retry_count + 1
            from fitting f
           where t.queue_id = v_queue_id and t.name = f.name
          returning t.name, t.tag, t.payload, t.retry_count, t.eta, t.enqueued_at, t.last_error, f.eta as available_at
        ),
      history as (
          insert into "lease_history" (queue_id, task_count)
          select v_queue_id, count(*) from leased having count(*) > 0
        ),
      outcome as (
          select (select paused from queue_state) as paused, 0::int8 as dead_lettered
        )
          select o.paused, o.dead_lettered, l.name, l.tag, l.payload, l.retry_count, l.last_error,
                 (extract(epoch from (l.eta - timestamptz 'epoch')) * 1000000)::int8 as eta_usec, (extract(epoch from (l.enqueued_at - timestamptz 'epoch')) * 1000000)::int8 as enqueued_usec
            from outcome o left join leased l on true
           order by l.available_at
    LOOP
      v_paused := r.paused;
      CONTINUE WHEN r.name IS NULL;
      v_out := (r.name, r.payload, r.tag, r.retry_count, timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond');
      RETURN NEXT v_out;
    END LOOP;
  ELSIF v_tag IS NOT NULL AND v_rate_calls IS NOT NULL AND v_max_leases IS NOT NULL AND NOT v_budget_binds THEN
    FOR r IN
      /* lease_tasks */
          with queue_state as materialized (
          select coalesce((select paused from "queues" where id = v_queue_id), false) as paused
        ),
      permit as (
            insert into "lease_rate_windows" as w (queue_id, window_start, calls)
            select v_queue_id, floor(extract(epoch from now()) / v_rate_seconds::int4)::int8, 1
             where not (select paused from queue_state)
            on conflict (queue_id) do update
              set calls = case when w.window_start = excluded.window_start then w.calls + 1 else 1 end,
                  window_start = excluded.window_start
            returning calls <= v_rate_calls::int4 as allowed
          ),
      picked as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now() and tag = v_tag and (select allowed from permit)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      exhausted as (
            delete from "tasks" t using picked p
             where t.queue_id = v_queue_id and t.name = p.name and p.retry_count >= v_max_leases::int4
            returning t.name, t.tag, t.payload, t.retry_count, t.enqueued_at, t.last_error
          ),
      tombstoned as (
            insert into "task_tombstones" (queue_id, name, reason, retry_count)
            select v_queue_id, name, 'retry_limit', retry_count from exhausted
            on conflict (queue_id, name) do update
              set deleted_at = excluded.deleted_at, reason = excluded.reason, retry_count = excluded.retry_count
          ),
      dead as (
            insert into "task_dead_letters" (queue_id, name, tag, payload, retry_count, enqueued_at, last_error)
            select v_queue_id, name, tag, payload, retry_count, enqueued_at, last_error from exhausted
            on conflict (queue_id, name) do update
              set tag = excluded.tag, payload = excluded.payload, retry_count = excluded.retry_count,
                  enqueued_at = excluded.enqueued_at, died_at = excluded.died_at, last_error = excluded.last_error
            returning 1
          ),
      fitting as (select name, eta from picked where retry_count < v_max_leases::int4),
      leased as (
          update "tasks" t
             set eta = now() + (v_lease_ms::float8 * interval '1 millisecond'),
                 retry_count = t.retry_count + 1
            from fitting f
           where t.queue_id = v_queue_id and t.name = f.name
          returning t.name, t.tag, t.payload, t.retry_count, t.eta, t.enqueued_at, t.last_error, f.eta as available_at
        ),
      history as (
          insert into "lease_history" (queue_id, task_count)
          select v_queue_id, count(*) from leased having count(*) > 0
        ),
      outcome as (
          select (select paused from queue_state) as paused, (select count(*) from dead)::int8 as dead_lettered
        )
          select o.paused, o.dead_lettered, l.name, l.tag, l.payload, l.retry_count, l.last_error,
                 (extract(epoch from (l.eta - timestamptz 'epoch')) * 1000000)::int8 as eta_usec, (extract(epoch from (l.enqueued_at - timestamptz 'epoch')) * 1000000)::int8 as enqueued_usec
            from outcome o left join leased l on true
           order by l.available_at
    LOOP
      v_paused := r.paused;
      CONTINUE WHEN r.name IS NULL;
      v_out := (r.name, r.payload, r.tag, r.retry_count, timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond');
      RETURN NEXT v_out;
    END LOOP;
  ELSIF v_tag IS NOT NULL AND v_rate_calls IS NOT NULL AND v_max_leases IS NOT NULL AND v_budget_binds THEN
    FOR r IN
      /* lease_tasks */
          with queue_state as materialized (
          select coalesce((select paused from "queues" where id = v_queue_id), false) as paused
        ),
      permit as (
            insert into "lease_rate_windows" as w (queue_id, window_start, calls)
            select v_queue_id, floor(extract(epoch from now()) / v_rate_seconds::int4)::int8, 1
             where not (select paused from queue_state)
            on conflict (queue_id) do update
              set calls = case when w.window_start = excluded.window_start then w.calls + 1 else 1 end,
                  window_start = excluded.window_start
            returning calls <= v_rate_calls::int4 as allowed
          ),
      picked as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now() and tag = v_tag and (select allowed from permit)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      exhausted as (
            delete from "tasks" t using picked p
             where t.queue_id = v_queue_id and t.name = p.name and p.retry_count >= v_max_leases::int4
            returning t.name, t.tag, t.payload, t.retry_count, t.enqueued_at, t.last_error
          ),
      tombstoned as (
            insert into "task_tombstones" (queue_id, name, reason, retry_count)
            select v_queue_id, name, 'retry_limit', retry_count from exhausted
            on conflict (queue_id, name) do update
              set deleted_at = excluded.deleted_at, reason = excluded.reason, retry_count = excluded.retry_count
          ),
      dead as (
            insert into "task_dead_letters" (queue_id, name, tag, payload, retry_count, enqueued_at, last_error)
            select v_queue_id, name, tag, payload, retry_count, enqueued_at, last_error from exhausted
            on conflict (queue_id, name) do update
              set tag = excluded.tag, payload = excluded.payload, retry_count = excluded.retry_count,
                  enqueued_at = excluded.enqueued_at, died_at = excluded.died_at, last_error = excluded.last_error
            returning 1
          ),
      fitting as (
            select name, eta from (
              select name, eta,
                     sum(payload_bytes) over (order by eta rows unbounded preceding) as running_bytes
                from picked where retry_count < v_max_leases::int4
            ) f
            where running_bytes <= 33554432::int8
          ),
      leased as (
          update "tasks" t
             set eta = now() + (v_lease_ms::float8 * interval '1 millisecond'),
                 retry_count = t.retry_count + 1
            from fitting f
           where t.queue_id = v_queue_id and t.name = f.name
          returning t.name, t.tag, t.payload, t.retry_count, t.eta, t.enqueued_at, t.last_error, f.eta as available_at
        ),
      history as (
          insert into "lease_history" (queue_id, task_count)
          select v_queue_id, count(*) from leased having count(*) > 0
        ),
      outcome as (
          select (select paused from queue_state) as paused, (select count(*) from dead)::int8 as dead_lettered
        )
          select o.paused, o.dead_lettered, l.name, l.tag, l.payload, l.retry_count, l.last_error,
                 (extract(epoch from (l.eta - timestamptz 'epoch')) * 1000000)::int8 as eta_usec, (extract(epoch from (l.enqueued_at - timestamptz 'epoch')) * 1000000)::int8 as enqueued_usec
            from outcome o left join leased l on true
           order by l.available_at
    LOOP
      v_paused := r.paused;
      CONTINUE WHEN r.name IS NULL;
      v_out := (r.name, r.payload, r.tag, r.retry_count, timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond');
      RETURN NEXT v_out;
    END LOOP;
  ELSIF v_tag IS NULL AND v_group AND v_rate_calls IS NULL AND v_max_leases IS NULL AND NOT v_budget_binds THEN
    FOR r IN
      /* lease_tasks */
          with queue_state as materialized (
          select coalesce((select paused from "queues" where id = v_queue_id), false) as paused
        ),
      oldest as materialized (
          select tag from "tasks"
           where queue_id = v_queue_id and eta <= now() and not (select paused from queue_state)
           order by eta
           limit 1
             for update skip locked
        ),
      picked_tagged as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now() and tag = (select tag from oldest) and not (select paused from queue_state)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      picked_untagged as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now() and tag is null and (select tag is null from oldest) and not (select paused from queue_state)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      picked as materialized (select * from picked_tagged union all select * from picked_untagged),
      fitting as (select name, eta from picked ),
      leased as (
          update "tasks" t
             set eta = now() + (v_lease_ms::float8 * interval '1 millisecond'),
                 retry_count = t.retry_count + 1
            from fitting f
           where t.queue_id = v_queue_id and t.name = f.name
          returning t.name, t.tag, t.payload, t.retry_count, t.eta, t.enqueued_at, t.last_error, f.eta as available_at
        ),
      history as (
          insert into "lease_history" (queue_id, task_count)
          select v_queue_id, count(*) from leased having count(*) > 0
        ),
      outcome as (
          select (select paused from queue_state) as paused, 0::int8 as dead_lettered
        )
          select o.paused, o.dead_lettered, l.name, l.tag, l.payload, l.retry_count, l.last_error,
                 (extract(epoch from (l.eta - timestamptz 'epoch')) * 1000000)::int8 as eta_usec, (extract(epoch from (l.enqueued_at - timestamptz 'epoch')) * 1000000)::int8 as enqueued_usec
            from outcome o left join leased l on true
           order by l.available_at
    LOOP
      v_paused := r.paused;
      CONTINUE WHEN r.name IS NULL;
      v_out := (r.name, r.payload, r.tag, r.retry_count, timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond');
      RETURN NEXT v_out;
    END LOOP;
  ELSIF v_tag IS NULL AND v_group AND v_rate_calls IS NULL AND v_max_leases IS NULL AND v_budget_binds THEN
    FOR r IN
      /* lease_tasks */
          with queue_state as materialized (
          select coalesce((select paused from "queues" where id = v_queue_id), false) as paused
        ),
      oldest as materialized (
          select tag from "tasks"
           where queue_id = v_queue_id and eta <= now() and not (select paused from queue_state)
           order by eta
           limit 1
             for update skip locked
        ),
      picked_tagged as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now() and tag = (select tag from oldest) and not (select paused from queue_state)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      picked_untagged as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now() and tag is null and (select tag is null from oldest) and not (select paused from queue_state)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      picked as materialized (select * from picked_tagged union all select * from picked_untagged),
      fitting as (
            select name, eta from (
              select name, eta,
                     sum(payload_bytes) over (order by eta rows unbounded preceding) as running_bytes
                from picked 
            ) f
            where running_bytes <= 33554432::int8
          ),
      leased as (
          update "tasks" t
             set eta = now() + (v_lease_ms::float8 * interval '1 millisecond'),
                 retry_count = t.retry_count + 1
            from fitting f
           where t.queue_id = v_queue_id and t.name = f.name
          returning t.name, t.tag, t.payload, t.retry_count, t.eta, t.enqueued_at, t.last_error, f.eta as available_at
        ),
      history as (
          insert into "lease_history" (queue_id, task_count)
          select v_queue_id, count(*) from leased having count(*) > 0
        ),
      outcome as (
          select (select paused from queue_state) as paused, 0::int8 as dead_lettered
        )
          select o.paused, o.dead_lettered, l.name, l.tag, l.payload, l.retry_count, l.last_error,
                 (extract(epoch from (l.eta - timestamptz 'epoch')) * 1000000)::int8 as eta_usec, (extract(epoch from (l.enqueued_at - timestamptz 'epoch')) * 1000000)::int8 as enqueued_usec
            from outcome o left join leased l on true
           order by l.available_at
    LOOP
      v_paused := r.paused;
      CONTINUE WHEN r.name IS NULL;
      v_out := (r.name, r.payload, r.tag, r.retry_count, timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond');
      RETURN NEXT v_out;
    END LOOP;
  ELSIF v_tag IS NULL AND v_group AND v_rate_calls IS NULL AND v_max_leases IS NOT NULL AND NOT v_budget_binds THEN
    FOR r IN
      /* lease_tasks */
          with queue_state as materialized (
          select coalesce((select paused from "queues" where id = v_queue_id), false) as paused
        ),
      oldest as materialized (
          select tag from "tasks"
           where queue_id = v_queue_id and eta <= now() and not (select paused from queue_state)
           order by eta
           limit 1
             for update skip locked
        ),
      picked_tagged as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now() and tag = (select tag from oldest) and not (select paused from queue_state)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      picked_untagged as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now() and tag is null and (select tag is null from oldest) and not (select paused from queue_state)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      picked as materialized (select * from picked_tagged union all select * from picked_untagged),
      exhausted as (
            delete from "tasks" t using picked p
             where t.queue_id = v_queue_id and t.name = p.name and p.retry_count >= v_max_leases::int4
            returning t.name, t.tag, t.payload, t.retry_count, t.enqueued_at, t.last_error
          ),
      tombstoned as (
            insert into "task_tombstones" (queue_id, name, reason, retry_count)
            select v_queue_id, name, 'retry_limit', retry_count from exhausted
            on conflict (queue_id, name) do update
              set deleted_at = excluded.deleted_at, reason = excluded.reason, retry_count = excluded.retry_count
          ),
      dead as (
            insert into "task_dead_letters" (queue_id, name, tag, payload, retry_count, enqueued_at, last_error)
            select v_queue_id, name, tag, payload, retry_count, enqueued_at, last_error from exhausted
            on conflict (queue_id, name) do update
              set tag = excluded.tag, payload = excluded.payload, retry_count = excluded.retry_count,
                  enqueued_at = excluded.enqueued_at, died_at = excluded.died_at, last_error = excluded.last_error
            returning 1
          ),
      fitting as (select name, eta from picked where retry_count < v_max_leases::int4),
      leased as (
          update "tasks" t
             set eta = now() + (v_lease_ms::float8 * interval '1 millisecond'),
                 retry_count = t.retry_count + 1
            from fitting f
           where t.queue_id = v_queue_id and t.name = f.name
          returning t.name, t.tag, t.payload, t.retry_count, t.eta, t.enqueued_at, t.last_error, f.eta as available_at
        ),
      history as (
          insert into "lease_history" (queue_id, task_count)
          select v_queue_id, count(*) from leased having count(*) > 0
        ),
      outcome as (
          select (select paused from queue_state) as paused, (select count(*) from dead)::int8 as dead_lettered
        )
          select o.paused, o.dead_lettered, l.name, l.tag, l.payload, l.retry_count, l.last_error,
                 (extract(epoch from (l.eta - timestamptz 'epoch')) * 1000000)::int8 as eta_usec, (extract(epoch from (l.enqueued_at - timestamptz 'epoch')) * 1000000)::int8 as enqueued_usec
            from outcome o left join leased l on true
           order by l.available_at
    LOOP
      v_paused := r.paused;
      CONTINUE WHEN r.name IS NULL;
      v_out := (r.name, r.payload, r.tag, r.retry_count, timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond');
      RETURN NEXT v_out;
    END LOOP;
  ELSIF v_tag IS NULL AND v_group AND v_rate_calls IS NULL AND v_max_leases IS NOT NULL AND v_budget_binds THEN
    FOR r IN
      /* lease_tasks */
          with queue_state as materialized (
          select coalesce((select paused from "queues" where id = v_queue_id), false) as paused
        ),
      oldest as materialized (
          select tag from "tasks"
           where queue_id = v_queue_id and eta <= now() and not (select paused from queue_state)
           order by eta
           limit 1
             for update skip locked
        ),
      picked_tagged as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now() and tag = (select tag from oldest) and not (select paused from queue_state)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      picked_untagged as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now() and tag is null and (select tag is null from oldest) and not (select paused from queue_state)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      picked as materialized (select * from picked_tagged union all select * from picked_untagged),
      exhausted as (
            delete from "tasks" t using picked p
             where t.queue_id = v_queue_id and t.name = p.name and p.retry_count >= v_max_leases::int4
            returning t.name, t.tag, t.payload, t.retry_count, t.enqueued_at, t.last_error
          ),
      tombstoned as (
            insert into "task_tombstones" (queue_id, name, reason, retry_count)
            select v_queue_id, name, 'retry_limit', retry_count from exhausted
            on conflict (queue_id, name) do update
              set deleted_at = excluded.deleted_at, reason = excluded.reason, retry_count = excluded.retry_count
          ),
      dead as (
            insert into "task_dead_letters" (queue_id, name, tag, payload, retry_count, enqueued_at, last_error)
            select v_queue_id, name, tag, payload, retry_count, enqueued_at, last_error from exhausted
            on conflict (queue_id, name) do update
              set tag = excluded.tag, payload = excluded.payload, retry_count = excluded.retry_count,
                  enqueued_at = excluded.enqueued_at, died_at = excluded.died_at, last_error = excluded.last_error
            returning 1
          ),
      fitting as (
            select name, eta from (
              select name, eta,
                     sum(payload_bytes) over (order by eta rows unbounded preceding) as running_bytes
                from picked where retry_count < v_max_leases::int4
            ) f
            where running_bytes <= 33554432::int8
          ),
      leased as (
          update "tasks" t
             set eta = now() + (v_lease_ms::float8 * interval '1 millisecond'),
                 retry_count = t.retry_count + 1
            from fitting f
           where t.queue_id = v_queue_id and t.name = f.name
          returning t.name, t.tag, t.payload, t.retry_count, t.eta, t.enqueued_at, t.last_error, f.eta as available_at
        ),
      history as (
          insert into "lease_history" (queue_id, task_count)
          select v_queue_id, count(*) from leased having count(*) > 0
        ),
      outcome as (
          select (select paused from queue_state) as paused, (select count(*) from dead)::int8 as dead_lettered
        )
          select o.paused, o.dead_lettered, l.name, l.tag, l.payload, l.retry_count, l.last_error,
                 (extract(epoch from (l.eta - timestamptz 'epoch')) * 1000000)::int8 as eta_usec, (extract(epoch from (l.enqueued_at - timestamptz 'epoch')) * 1000000)::int8 as enqueued_usec
            from outcome o left join leased l on true
           order by l.available_at
    LOOP
      v_paused := r.paused;
      CONTINUE WHEN r.name IS NULL;
      v_out := (r.name, r.payload, r.tag, r.retry_count, timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond');
      RETURN NEXT v_out;
    END LOOP;
  ELSIF v_tag IS NULL AND v_group AND v_rate_calls IS NOT NULL AND v_max_leases IS NULL AND NOT v_budget_binds THEN
    FOR r IN
      /* lease_tasks */
          with queue_state as materialized (
          select coalesce((select paused from "queues" where id = v_queue_id), false) as paused
        ),
      permit as (
            insert into "lease_rate_windows" as w (queue_id, window_start, calls)
            select v_queue_id, floor(extract(epoch from now()) / v_rate_seconds::int4)::int8, 1
             where not (select paused from queue_state)
            on conflict (queue_id) do update
              set calls = case when w.window_start = excluded.window_start then w.calls + 1 else 1 end,
                  window_start = excluded.window_start
            returning calls <= v_rate_calls::int4 as allowed
          ),
      oldest as materialized (
          select tag from "tasks"
           where queue_id = v_queue_id and eta <= now() and (select allowed from permit)
           order by eta
           limit 1
             for update skip locked
        ),
      picked_tagged as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now() and tag = (select tag from oldest) and (select allowed from permit)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      picked_untagged as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now() and tag is null and (select tag is null from oldest) and (select allowed from permit)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      picked as materialized (select * from picked_tagged union all select * from picked_untagged),
      fitting as (select name, eta from picked ),
      leased as (
          update "tasks" t
             set eta = now() + (v_lease_ms::float8 * interval '1 millisecond'),
                 retry_count = t.retry_count + 1
            from fitting f
           where t.queue_id = v_queue_id and t.name = f.name
          returning t.name, t.tag, t.payload, t.retry_count, t.eta, t.enqueued_at, t.last_error, f.eta as available_at
        ),
      history as (
          insert into "lease_history" (queue_id, task_count)
          select v_queue_id, count(*) from leased having count(*) > 0
        ),
      outcome as (
          select (select paused from queue_state) as paused, 0::int8 as dead_lettered
        )
          select o.paused, o.dead_lettered, l.name, l.tag, l.payload, l.retry_count, l.last_error,
                 (extract(epoch from (l.eta - timestamptz 'epoch')) * 1000000)::int8 as eta_usec, (extract(epoch from (l.enqueued_at - timestamptz 'epoch')) * 1000000)::int8 as enqueued_usec
            from outcome o left join leased l on true
           order by l.available_at
    LOOP
      v_paused := r.paused;
      CONTINUE WHEN r.name IS NULL;
      v_out := (r.name, r.payload, r.tag, r.retry_count, timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond');
      RETURN NEXT v_out;
    END LOOP;
  ELSIF v_tag IS NULL AND v_group AND v_rate_calls IS NOT NULL AND v_max_leases IS NULL AND v_budget_binds THEN
    FOR r IN
      /* lease_tasks */
          with queue_state as materialized (
          select coalesce((select paused from "queues" where id = v_queue_id), false) as paused
        ),
      permit as (
            insert into "lease_rate_windows" as w (queue_id, window_start, calls)
            select v_queue_id, floor(extract(epoch from now()) / v_rate_seconds::int4)::int8, 1
             where not (select paused from queue_state)
            on conflict (queue_id) do update
              set calls = case when w.window_start = excluded.window_start then w.calls + 1 else 1 end,
                  window_start = excluded.window_start
            returning calls <= v_rate_calls::int4 as allowed
          ),
      oldest as materialized (
          select tag from "tasks"
           where queue_id = v_queue_id and eta <= now() and (select allowed from permit)
           order by eta
           limit 1
             for update skip locked
        ),
      picked_tagged as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now() and tag = (select tag from oldest) and (select allowed from permit)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      picked_untagged as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now() and tag is null and (select tag is null from oldest) and (select allowed from permit)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      picked as materialized (select * from picked_tagged union all select * from picked_untagged),
      fitting as (
            select name, eta from (
              select name, eta,
                     sum(payload_bytes) over (order by eta rows unbounded preceding) as running_bytes
                from picked 
            ) f
            where running_bytes <= 33554432::int8
          ),
      leased as (
          update "tasks" t
             set eta = now() + (v_lease_ms::float8 * interval '1 millisecond'),
                 retry_count = t.retry_count + 1
            from fitting f
           where t.queue_id = v_queue_id and t.name = f.name
          returning t.name, t.tag, t.payload, t.retry_count, t.eta, t.enqueued_at, t.last_error, f.eta as available_at
        ),
      history as (
          insert into "lease_history" (queue_id, task_count)
          select v_queue_id, count(*) from leased having count(*) > 0
        ),
      outcome as (
          select (select paused from queue_state) as paused, 0::int8 as dead_lettered
        )
          select o.paused, o.dead_lettered, l.name, l.tag, l.payload, l.retry_count, l.last_error,
                 (extract(epoch from (l.eta - timestamptz 'epoch')) * 1000000)::int8 as eta_usec, (extract(epoch from (l.enqueued_at - timestamptz 'epoch')) * 1000000)::int8 as enqueued_usec
            from outcome o left join leased l on true
           order by l.available_at
    LOOP
      v_paused := r.paused;
      CONTINUE WHEN r.name IS NULL;
      v_out := (r.name, r.payload, r.tag, r.retry_count, timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond');
      RETURN NEXT v_out;
    END LOOP;
  ELSIF v_tag IS NULL AND v_group AND v_rate_calls IS NOT NULL AND v_max_leases IS NOT NULL AND NOT v_budget_binds THEN
    FOR r IN
      /* lease_tasks */
          with queue_state as materialized (
          select coalesce((select paused from "queues" where id = v_queue_id), false) as paused
        ),
      permit as (
            insert into "lease_rate_windows" as w (queue_id, window_start, calls)
            select v_queue_id, floor(extract(epoch from now()) / v_rate_seconds::int4)::int8, 1
             where not (select paused from queue_state)
            on conflict (queue_id) do update
              set calls = case when w.window_start = excluded.window_start then w.calls + 1 else 1 end,
                  window_start = excluded.window_start
            returning calls <= v_rate_calls::int4 as allowed
          ),
      oldest as materialized (
          select tag from "tasks"
           where queue_id = v_queue_id and eta <= now() and (select allowed from permit)
           order by eta
           limit 1
             for update skip locked
        ),
      picked_tagged as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now() and tag = (select tag from oldest) and (select allowed from permit)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      picked_untagged as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now() and tag is null and (select tag is null from oldest) and (select allowed from permit)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      picked as materialized (select * from picked_tagged union all select * from picked_untagged),
      exhausted as (
            delete from "tasks" t using picked p
             where t.queue_id = v_queue_id and t.name = p.name and p.retry_count >= v_max_leases::int4
            returning t.name, t.tag, t.payload, t.retry_count, t.enqueued_at, t.last_error
          ),
      tombstoned as (
            insert into "task_tombstones" (queue_id, name, reason, retry_count)
            select v_queue_id, name, 'retry_limit', retry_count from exhausted
            on conflict (queue_id, name) do update
              set deleted_at = excluded.deleted_at, reason = excluded.reason, retry_count = excluded.retry_count
          ),
      dead as (
            insert into "task_dead_letters" (queue_id, name, tag, payload, retry_count, enqueued_at, last_error)
            select v_queue_id, name, tag, payload, retry_count, enqueued_at, last_error from exhausted
            on conflict (queue_id, name) do update
              set tag = excluded.tag, payload = excluded.payload, retry_count = excluded.retry_count,
                  enqueued_at = excluded.enqueued_at, died_at = excluded.died_at, last_error = excluded.last_error
            returning 1
          ),
      fitting as (select name, eta from picked where retry_count < v_max_leases::int4),
      leased as (
          update "tasks" t
             set eta = now() + (v_lease_ms::float8 * interval '1 millisecond'),
                 retry_count = t.retry_count + 1
            from fitting f
           where t.queue_id = v_queue_id and t.name = f.name
          returning t.name, t.tag, t.payload, t.retry_count, t.eta, t.enqueued_at, t.last_error, f.eta as available_at
        ),
      history as (
          insert into "lease_history" (queue_id, task_count)
          select v_queue_id, count(*) from leased having count(*) > 0
        ),
      outcome as (
          select (select paused from queue_state) as paused, (select count(*) from dead)::int8 as dead_lettered
        )
          select o.paused, o.dead_lettered, l.name, l.tag, l.payload, l.retry_count, l.last_error,
                 (extract(epoch from (l.eta - timestamptz 'epoch')) * 1000000)::int8 as eta_usec, (extract(epoch from (l.enqueued_at - timestamptz 'epoch')) * 1000000)::int8 as enqueued_usec
            from outcome o left join leased l on true
           order by l.available_at
    LOOP
      v_paused := r.paused;
      CONTINUE WHEN r.name IS NULL;
      v_out := (r.name, r.payload, r.tag, r.retry_count, timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond');
      RETURN NEXT v_out;
    END LOOP;
  ELSIF v_tag IS NULL AND v_group AND v_rate_calls IS NOT NULL AND v_max_leases IS NOT NULL AND v_budget_binds THEN
    FOR r IN
      /* lease_tasks */
          with queue_state as materialized (
          select coalesce((select paused from "queues" where id = v_queue_id), false) as paused
        ),
      permit as (
            insert into "lease_rate_windows" as w (queue_id, window_start, calls)
            select v_queue_id, floor(extract(epoch from now()) / v_rate_seconds::int4)::int8, 1
             where not (select paused from queue_state)
            on conflict (queue_id) do update
              set calls = case when w.window_start = excluded.window_start then w.calls + 1 else 1 end,
                  window_start = excluded.window_start
            returning calls <= v_rate_calls::int4 as allowed
          ),
      oldest as materialized (
          select tag from "tasks"
           where queue_id = v_queue_id and eta <= now() and (select allowed from permit)
           order by eta
           limit 1
             for update skip locked
        ),
      picked_tagged as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now() and tag = (select tag from oldest) and (select allowed from permit)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      picked_untagged as materialized (
          select name, eta, retry_count, octet_length(payload) as payload_bytes
            from "tasks"
           where queue_id = v_queue_id and eta <= now() and tag is null and (select tag is null from oldest) and (select allowed from permit)
           order by eta
           limit v_max_tasks::int4
             for update skip locked
        ),
      picked as materialized (select * from picked_tagged union all select * from picked_untagged),
      exhausted as (
            delete from "tasks" t using picked p
             where t.queue_id = v_queue_id and t.name = p.name and p.retry_count >= v_max_leases::int4
            returning t.name, t.tag, t.payload, t.retry_count, t.enqueued_at, t.last_error
          ),
      tombstoned as (
            insert into "task_tombstones" (queue_id, name, reason, retry_count)
            select v_queue_id, name, 'retry_limit', retry_count from exhausted
            on conflict (queue_id, name) do update
              set deleted_at = excluded.deleted_at, reason = excluded.reason, retry_count = excluded.retry_count
          ),
      dead as (
            insert into "task_dead_letters" (queue_id, name, tag, payload, retry_count, enqueued_at, last_error)
            select v_queue_id, name, tag, payload, retry_count, enqueued_at, last_error from exhausted
            on conflict (queue_id, name) do update
              set tag = excluded.tag, payload = excluded.payload, retry_count = excluded.retry_count,
                  enqueued_at = excluded.enqueued_at, died_at = excluded.died_at, last_error = excluded.last_error
            returning 1
          ),
      fitting as (
            select name, eta from (
              select name, eta,
                     sum(payload_bytes) over (order by eta rows unbounded preceding) as running_bytes
                from picked where retry_count < v_max_leases::int4
            ) f
            where running_bytes <= 33554432::int8
          ),
      leased as (
          update "tasks" t
             set eta = now() + (v_lease_ms::float8 * interval '1 millisecond'),
                 retry_count = t.retry_count + 1
            from fitting f
           where t.queue_id = v_queue_id and t.name = f.name
          returning t.name, t.tag, t.payload, t.retry_count, t.eta, t.enqueued_at, t.last_error, f.eta as available_at
        ),
      history as (
          insert into "lease_history" (queue_id, task_count)
          select v_queue_id, count(*) from leased having count(*) > 0
        ),
      outcome as (
          select (select paused from queue_state) as paused, (select count(*) from dead)::int8 as dead_lettered
        )
          select o.paused, o.dead_lettered, l.name, l.tag, l.payload, l.retry_count, l.last_error,
                 (extract(epoch from (l.eta - timestamptz 'epoch')) * 1000000)::int8 as eta_usec, (extract(epoch from (l.enqueued_at - timestamptz 'epoch')) * 1000000)::int8 as enqueued_usec
            from outcome o left join leased l on true
           order by l.available_at
    LOOP
      v_paused := r.paused;
      CONTINUE WHEN r.name IS NULL;
      v_out := (r.name, r.payload, r.tag, r.retry_count, timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond');
      RETURN NEXT v_out;
    END LOOP;
  END IF;
  IF v_paused THEN
    -- As the in-process lease: a paused queue leases nothing and counts no call.
    RAISE EXCEPTION 'queue paused: queue "%" is paused; leases return no tasks until it is resumed', queue
      USING ERRCODE = 'TQ014', DETAIL = queue, HINT = 'QUEUE_PAUSED';
  END IF;
END
$$;

-- CREATE OR REPLACE replaces a function's SET clauses: 0015's fixed
-- search_path and planner settings again.
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION lease_tasks(text, integer, integer, text, boolean) SET search_path = %I, pg_catalog, pg_temp', current_schema());
  ALTER FUNCTION lease_tasks(text, integer, integer, text, boolean)
    SET enable_bitmapscan = off SET enable_hashjoin = off SET enable_mergejoin = off
    SET plan_cache_mode = force_generic_plan SET jit = off;
END
$$;
-- END GENERATED lease_tasks

-- BEGIN GENERATED modify_lease (src/store/sql-api-functions.ts; do not edit)
CREATE OR REPLACE FUNCTION modify_lease(queue text, name text, lease_expires_at timestamptz, lease_seconds integer)
RETURNS timestamptz
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
AS $$
#variable_conflict use_column
DECLARE
  q          queues;
  r          record;
  v_queue_id integer;
  v_name     text := modify_lease.name;
  v_token    timestamptz := modify_lease.lease_expires_at;
  v_lease_ms float8 := modify_lease.lease_seconds * 1000.0;
BEGIN
  SELECT * INTO q FROM queues WHERE queues.name = queue AND queues.active AND queues.mode = 'pull';
  IF NOT FOUND THEN
    q := sql_api_queue(queue, true, 'modify the lease of');  -- raises the error that fits
  END IF;
  IF lease_seconds IS NULL OR lease_seconds < 0 OR lease_seconds > 604800 THEN
    RAISE EXCEPTION 'lease_seconds: a lease lasts 0 to 604800 seconds (one week), got %', coalesce(lease_seconds::text, 'NULL')
      USING ERRCODE = 'TQ015', DETAIL = coalesce(lease_seconds::text, ''), HINT = 'INVALID_REQUEST';
  END IF;
  IF v_token IS NULL THEN
    RAISE EXCEPTION 'lease_expires_at: the task''s lease token (the expiry its lease returned) is required'
      USING ERRCODE = 'TQ015', DETAIL = coalesce(v_name, ''), HINT = 'INVALID_REQUEST';
  END IF;
  v_queue_id := q.id;
  -- The service's modify (src/store/modify-lease.ts), generated from its
  -- builder: fenced by the token, only while eta is still the expiry the
  -- caller was handed and lies ahead.
  FOR r IN
    /* modify_lease */
        update "tasks"
           set eta = now() + (v_lease_ms::float8 * interval '1 millisecond')  
         where queue_id = v_queue_id and name = v_name
           and eta = v_token and eta > now()
        returning name, tag, payload, retry_count, last_error,
                  (extract(epoch from (eta - timestamptz 'epoch')) * 1000000)::int8 as eta_usec, (extract(epoch from (enqueued_at - timestamptz 'epoch')) * 1000000)::int8 as enqueued_usec
  LOOP
    RETURN timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond';
  END LOOP;
  IF EXISTS (SELECT 1 FROM tasks t WHERE t.queue_id = q.id AND t.name = v_name) THEN
    RAISE EXCEPTION 'lease expired: the lease on task "%" has expired or is held by another lease; it could not be modified', v_name
      USING ERRCODE = 'TQ012', DETAIL = v_name, HINT = 'TASK_LEASE_EXPIRED';
  END IF;
  IF held_by_form(v_name) OR EXISTS (SELECT 1 FROM task_tombstones d WHERE d.queue_id = q.id AND d.name = v_name) THEN
    RAISE EXCEPTION 'tombstoned: task "%" has been deleted', v_name
      USING ERRCODE = 'TQ001', DETAIL = v_name, HINT = 'TOMBSTONED_TASK';
  END IF;
  RAISE EXCEPTION 'unknown task: task "%" does not exist', v_name
    USING ERRCODE = 'TQ013', DETAIL = coalesce(v_name, ''), HINT = 'UNKNOWN_TASK';
END
$$;

-- CREATE OR REPLACE replaces a function's SET clauses: 0015's fixed
-- search_path and planner settings again.
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION modify_lease(text, text, timestamptz, integer) SET search_path = %I, pg_catalog, pg_temp', current_schema());
  ALTER FUNCTION modify_lease(text, text, timestamptz, integer)
    SET enable_bitmapscan = off SET enable_hashjoin = off SET enable_mergejoin = off
    SET plan_cache_mode = force_generic_plan SET jit = off;
END
$$;
-- END GENERATED modify_lease

-- BEGIN GENERATED delete_tasks (src/store/sql-api-functions.ts; do not edit)
CREATE OR REPLACE FUNCTION delete_tasks(queue text, names text[])
RETURNS boolean[]
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
AS $$
#variable_conflict use_column
DECLARE
  q           queues;
  r           record;
  n           integer := coalesce(cardinality(names), 0);
  v_queue_id  integer;
  v_names     text[] := delete_tasks.names;
  v_untracked text[];
  v_deleted   text[] := '{}';
  v_count     integer := 0;
  v_held_from timestamptz;
BEGIN
  SELECT * INTO q FROM queues WHERE queues.name = queue AND queues.active;
  IF NOT FOUND THEN
    q := sql_api_queue(queue, false, 'delete');  -- raises the error that fits
  END IF;
  IF n = 0 THEN
    RETURN '{}';
  END IF;
  IF n > 1000 THEN
    RAISE EXCEPTION 'batch size: at most 1000 tasks may be deleted at once, got %', n
      USING ERRCODE = 'TQ009', DETAIL = n::text, HINT = 'TOO_MANY_TASKS';
  END IF;
  v_queue_id := q.id;
  -- held_by_form, with the retention read once for the whole call.
  v_held_from := now() - tombstone_retention();
  v_untracked := ARRAY(SELECT x FROM unnest(v_names) x WHERE generated_name_time(x) > v_held_from);
  -- The service's delete of each shape (src/store/delete-tasks.ts),
  -- generated from its builder.
  IF cardinality(v_untracked) = n THEN
    FOR r IN
      /* delete_tasks_untracked */
            delete from "tasks"
             where queue_id = v_queue_id and name = any(v_names::text[])
            returning name
    LOOP
      v_count := v_count + 1;
      v_deleted[v_count] := r.name;
    END LOOP;
  ELSE
    FOR r IN
      /* delete_tasks */
          with gone as (
            delete from "tasks"
             where queue_id = v_queue_id and name = any(v_names::text[])
            returning name, retry_count
          ), held as (
            insert into "task_tombstones" (queue_id, name, reason, retry_count)
            select v_queue_id::int4, name, 'deleted', retry_count from gone where name <> all(v_untracked::text[])
            on conflict (queue_id, name) do update
              set deleted_at = excluded.deleted_at, reason = excluded.reason, retry_count = excluded.retry_count
          )
          select name from gone
    LOOP
      v_count := v_count + 1;
      v_deleted[v_count] := r.name;
    END LOOP;
  END IF;
  RETURN ARRAY(SELECT coalesce(x = ANY (v_deleted), false) FROM unnest(v_names) WITH ORDINALITY AS u (x, i) ORDER BY i);
END
$$;

-- CREATE OR REPLACE replaces a function's SET clauses: 0015's fixed
-- search_path and planner settings again.
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION delete_tasks(text, text[]) SET search_path = %I, pg_catalog, pg_temp', current_schema());
  ALTER FUNCTION delete_tasks(text, text[])
    SET enable_bitmapscan = off SET enable_hashjoin = off SET enable_mergejoin = off
    SET plan_cache_mode = force_generic_plan SET jit = off;
END
$$;
-- END GENERATED delete_tasks

-- BEGIN GENERATED add_tasks (src/store/sql-api-functions.ts; do not edit)
CREATE OR REPLACE FUNCTION add_tasks(queue text, payloads bytea[], names text[] DEFAULT NULL, tags text[] DEFAULT NULL,
                          etas timestamptz[] DEFAULT NULL)
RETURNS text[]
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
AS $$
#variable_conflict use_variable
DECLARE
  q         queues;
  n         integer := coalesce(cardinality(payloads), 0);
  out_names text[] := '{}';
  out_tags  text[] := '{}';
  out_pays  bytea[] := '{}';
  given     text[] := '{}';
  task_name text;
  task_tag  text;
  payload   bytea;
  eta       timestamptz;
  held      text;
  inserted  text[];
  held_from timestamptz;
BEGIN
  q := sql_api_queue(queue, false, 'add');
  IF q.mode <> 'pull' THEN
    RAISE EXCEPTION 'queue mode: queue "%" is a push queue; the SQL API adds pull tasks only', queue
      USING ERRCODE = 'TQ004', DETAIL = queue, HINT = 'INVALID_QUEUE_MODE';
  END IF;
  IF n = 0 THEN
    RETURN '{}';
  END IF;
  IF n > 100 THEN
    RAISE EXCEPTION 'batch size: at most 100 tasks may be added at once, got %', n
      USING ERRCODE = 'TQ009', DETAIL = n::text, HINT = 'TOO_MANY_TASKS';
  END IF;
  IF array_ndims(payloads) > 1 OR coalesce(cardinality(names), n) <> n OR coalesce(cardinality(tags), n) <> n
     OR coalesce(cardinality(etas), n) <> n THEN
    RAISE EXCEPTION 'arguments: names, tags and etas must be NULL or one-dimensional arrays as long as payloads (%)', n
      USING ERRCODE = 'TQ015', DETAIL = n::text, HINT = 'INVALID_REQUEST';
  END IF;
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    -- The trigger's tombstone and storage-limit checks read the latest
    -- committed rows only under READ COMMITTED.
    RAISE EXCEPTION 'isolation level: tasks can be added only inside READ COMMITTED transactions (the PostgreSQL default), not %',
      current_setting('transaction_isolation')
      USING ERRCODE = 'TQ015', DETAIL = current_setting('transaction_isolation'), HINT = 'INVALID_REQUEST';
  END IF;

  FOR i IN 1..n LOOP
    task_name := names[i];
    IF task_name IS NULL THEN
      task_name := generate_task_name();
    ELSE
      IF task_name !~ '^[a-zA-Z0-9_-]+$' OR length(task_name) > 500 THEN
        RAISE EXCEPTION 'task name: must match ^[a-zA-Z0-9_-]{1,500}$ (letters, digits, _ and -; 1 to 500), got "%" (task %)',
          left(task_name, 60), i
          USING ERRCODE = 'TQ005', DETAIL = left(task_name, 500), HINT = 'INVALID_TASK_NAME';
      END IF;
      given := given || task_name;
    END IF;
    payload := coalesce(payloads[i], '\x'::bytea);
    IF octet_length(payload) > 1048576 THEN
      RAISE EXCEPTION 'task size: task "%": payload is % bytes; the limit is 1048576', task_name, octet_length(payload)
        USING ERRCODE = 'TQ006', DETAIL = task_name, HINT = 'TASK_TOO_LARGE';
    END IF;
    task_tag := nullif(tags[i], '');
    IF octet_length(task_tag) > 500 THEN
      RAISE EXCEPTION 'tag size: tag must be <= 500 bytes, got a % byte tag (task "%")', octet_length(task_tag), task_name
        USING ERRCODE = 'TQ007', DETAIL = task_name, HINT = 'INVALID_TAG';
    END IF;
    eta := etas[i];
    IF eta IS NOT NULL AND (NOT isfinite(eta) OR eta < timestamptz 'epoch') THEN
      RAISE EXCEPTION 'eta: must be a time after 1970, got % (task "%")', eta, task_name
        USING ERRCODE = 'TQ008', DETAIL = task_name, HINT = 'INVALID_ETA';
    END IF;
    IF eta > now() + interval '2592000 seconds' THEN
      RAISE EXCEPTION 'eta: a task ETA lies more than 30 days ahead of the current time, got % (task "%")', eta, task_name
        USING ERRCODE = 'TQ008', DETAIL = task_name, HINT = 'INVALID_ETA';
    END IF;
    out_names[i] := task_name;
    out_tags[i] := task_tag;
    out_pays[i] := payload;
  END LOOP;

  IF cardinality(given) > 1 THEN
    SELECT g INTO held FROM unnest(given) g GROUP BY g HAVING count(*) > 1 LIMIT 1;
    IF FOUND THEN
      RAISE EXCEPTION 'duplicate name: task name "%" appears twice in one add', held
        USING ERRCODE = 'TQ010', DETAIL = held, HINT = 'DUPLICATE_TASK_NAME';
    END IF;
  END IF;

  -- A given name in the generated form, made within the retention period,
  -- is a copy: held by its form whether its task is live or deleted.
  IF cardinality(given) > 0 THEN
    held_from := now() - tombstone_retention();  -- once, not once per name (0017)
    SELECT g INTO held FROM unnest(given) g WHERE generated_name_time(g) > held_from LIMIT 1;
    IF FOUND THEN
      SELECT t.name INTO held FROM tasks t
       WHERE t.queue_id = q.id AND t.name = ANY (given) AND generated_name_time(t.name) > held_from LIMIT 1;
      IF FOUND THEN
        RAISE EXCEPTION 'task exists: task "%" already exists', held
          USING ERRCODE = 'TQ011', DETAIL = held, HINT = 'TASK_ALREADY_EXISTS';
      END IF;
      SELECT g INTO held FROM unnest(given) g WHERE generated_name_time(g) > held_from LIMIT 1;
      RAISE EXCEPTION 'task name "%" belongs to a recently deleted task and is still held', held
        USING ERRCODE = 'TQ001', DETAIL = held, HINT = 'TOMBSTONED_TASK';
    END IF;
  END IF;

  -- One statement, as the service's add: the trigger of 0007/0011 refuses
  -- tombstoned names (TQ001), keeps the storage counters and limits (TQ002)
  -- and wakes waiting long-polls. Tasks without an ETA are leasable now,
  -- one microsecond apart in the order given (FIFO), like the service's.
  -- A live name is skipped here and named below (TQ011), not left to the
  -- primary key's unique_violation, which names neither rule nor task clearly.
  WITH stored_rows AS (
    INSERT INTO tasks AS t (queue_id, name, eta, tag, payload)
    SELECT q.id, i.name, coalesce(i.eta, now() + (i.ord - 1) * interval '1 microsecond'), i.tag, i.payload
      FROM unnest(out_names, out_tags, out_pays, etas) WITH ORDINALITY AS i (name, tag, payload, eta, ord)
    ON CONFLICT DO NOTHING
    RETURNING t.name
  )
  SELECT array_agg(s.name) INTO inserted FROM stored_rows s;
  IF coalesce(cardinality(inserted), 0) <> n THEN
    SELECT o INTO held FROM unnest(out_names) WITH ORDINALITY AS u (o, ord)
     WHERE o <> ALL (coalesce(inserted, '{}')) ORDER BY ord LIMIT 1;
    RAISE EXCEPTION 'task exists: task "%" already exists', coalesce(held, '?')
      USING ERRCODE = 'TQ011', DETAIL = coalesce(held, ''), HINT = 'TASK_ALREADY_EXISTS';
  END IF;
  RETURN out_names;
END
$$;

-- CREATE OR REPLACE replaces a function's SET clauses: 0015's fixed
-- search_path and planner settings again.
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION add_tasks(text, bytea[], text[], text[], timestamptz[]) SET search_path = %I, pg_catalog, pg_temp', current_schema());
  ALTER FUNCTION add_tasks(text, bytea[], text[], text[], timestamptz[])
    SET enable_bitmapscan = off SET enable_hashjoin = off SET enable_mergejoin = off
    SET plan_cache_mode = force_generic_plan SET jit = off;
END
$$;
-- END GENERATED add_tasks
