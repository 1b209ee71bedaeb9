-- GENERATED from leaseStatement (src/store/lease-tasks.ts) by `npm run generate:sql-api`: do not edit by hand.

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
  -- As the service's leaseShapeOf: the running sum only where the budget could bind, for
  -- more tasks than the 33554432 bytes always hold (tasksAlwaysFitting).
  v_budget_binds := v_max_tasks > 32;

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
            update "tasks" t
               set eta = '-infinity'
              from picked p
             where t.queue_id = v_queue_id and t.name = p.name and p.retry_count >= v_max_leases::int4
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
      outcome as (
          select (select paused from queue_state) as paused, (select count(*) from exhausted)::int8 as dead_lettered
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
            update "tasks" t
               set eta = '-infinity'
              from picked p
             where t.queue_id = v_queue_id and t.name = p.name and p.retry_count >= v_max_leases::int4
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
      outcome as (
          select (select paused from queue_state) as paused, (select count(*) from exhausted)::int8 as dead_lettered
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
            update "tasks" t
               set eta = '-infinity'
              from picked p
             where t.queue_id = v_queue_id and t.name = p.name and p.retry_count >= v_max_leases::int4
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
      outcome as (
          select (select paused from queue_state) as paused, (select count(*) from exhausted)::int8 as dead_lettered
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
            update "tasks" t
               set eta = '-infinity'
              from picked p
             where t.queue_id = v_queue_id and t.name = p.name and p.retry_count >= v_max_leases::int4
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
      outcome as (
          select (select paused from queue_state) as paused, (select count(*) from exhausted)::int8 as dead_lettered
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
            update "tasks" t
               set eta = '-infinity'
              from picked p
             where t.queue_id = v_queue_id and t.name = p.name and p.retry_count >= v_max_leases::int4
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
      outcome as (
          select (select paused from queue_state) as paused, (select count(*) from exhausted)::int8 as dead_lettered
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
            update "tasks" t
               set eta = '-infinity'
              from picked p
             where t.queue_id = v_queue_id and t.name = p.name and p.retry_count >= v_max_leases::int4
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
      outcome as (
          select (select paused from queue_state) as paused, (select count(*) from exhausted)::int8 as dead_lettered
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
            update "tasks" t
               set eta = '-infinity'
              from picked p
             where t.queue_id = v_queue_id and t.name = p.name and p.retry_count >= v_max_leases::int4
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
      outcome as (
          select (select paused from queue_state) as paused, (select count(*) from exhausted)::int8 as dead_lettered
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
            update "tasks" t
               set eta = '-infinity'
              from picked p
             where t.queue_id = v_queue_id and t.name = p.name and p.retry_count >= v_max_leases::int4
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
      outcome as (
          select (select paused from queue_state) as paused, (select count(*) from exhausted)::int8 as dead_lettered
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
            update "tasks" t
               set eta = '-infinity'
              from picked p
             where t.queue_id = v_queue_id and t.name = p.name and p.retry_count >= v_max_leases::int4
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
      outcome as (
          select (select paused from queue_state) as paused, (select count(*) from exhausted)::int8 as dead_lettered
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
            update "tasks" t
               set eta = '-infinity'
              from picked p
             where t.queue_id = v_queue_id and t.name = p.name and p.retry_count >= v_max_leases::int4
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
      outcome as (
          select (select paused from queue_state) as paused, (select count(*) from exhausted)::int8 as dead_lettered
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
            update "tasks" t
               set eta = '-infinity'
              from picked p
             where t.queue_id = v_queue_id and t.name = p.name and p.retry_count >= v_max_leases::int4
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
      outcome as (
          select (select paused from queue_state) as paused, (select count(*) from exhausted)::int8 as dead_lettered
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
            update "tasks" t
               set eta = '-infinity'
              from picked p
             where t.queue_id = v_queue_id and t.name = p.name and p.retry_count >= v_max_leases::int4
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
      outcome as (
          select (select paused from queue_state) as paused, (select count(*) from exhausted)::int8 as dead_lettered
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

-- CREATE OR REPLACE replaces a function's SET clauses: the schema's fixed
-- search_path and planner settings again (docs/sql-api.md).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION lease_tasks(text, integer, integer, text, boolean) SET search_path = %I, pg_catalog, pg_temp', current_schema());
  ALTER FUNCTION lease_tasks(text, integer, integer, text, boolean)
    SET enable_bitmapscan = off SET enable_hashjoin = off SET enable_mergejoin = off
    SET plan_cache_mode = force_generic_plan SET jit = off;
END
$$;

-- Nobody but the owner calls it unless granted (docs/sql-api.md, roles).
REVOKE ALL ON FUNCTION lease_tasks(text, integer, integer, text, boolean) FROM PUBLIC;
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = current_schema() || '_consumer') THEN
    EXECUTE format('GRANT EXECUTE ON FUNCTION %I.lease_tasks(text, integer, integer, text, boolean) TO %I', current_schema(), current_schema() || '_consumer');
  END IF;
END
$$;
