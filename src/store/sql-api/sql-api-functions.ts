import { sql } from 'kysely';
import { LIMITS } from '../../core/limits.js';
import type { TagFilter } from '../../core/task-store.js';
import { deleteStatement } from '../delete-tasks.js';
import { addTaskFunction, addTasksFunction, refuseAddFunction } from './sql-api-add-function.js';
import { generatedNameTimeFunction, generateTaskNamesFunction } from './generated-name-sql.js';
import { batchSizeCheck, LEASE_SECONDS_CHECK } from './sql-api-checks.js';
import { ADD_PUSH_TASK_SIGNATURE, addPushTaskFunction, addPushTaskGrants } from './sql-api-push-function.js';
import { leaseStatement, tasksAlwaysFitting, type LeaseShape, type LeaseValues } from '../lease-tasks.js';
import { modifyLeaseStatement, whyNotModifiedStatement } from '../modify-lease.js';
import { claimAfterDeliveryFunction } from './push-claim-function.js';
import { indent, routineOf, statementText, tableOf, v } from './sql-api-text.js';

/**
 * The SQL API's functions that are generated from the store's own statement
 * builders, so that a rule has one definition for both ways in: the service
 * runs the builder's statement with bound values, the function runs the same
 * text with its PL/pgSQL variables in the bound values' places (a variable
 * in a PL/pgSQL query is a parameter of its cached plan, as a bound value is
 * of the service's prepared statement). The limits checked before the
 * statement are written from src/core/limits.ts.
 *
 * Each function's routine file carries the text (sql/routines/<name>.sql,
 * with the grants of sql-api-routines.ts; the service never writes DDL at
 * run time, migrate() applies a routine whose text changed): `npm run
 * generate:sql-api` writes them, and test/sql-api/generated-functions.test.ts
 * fails while a file differs from what this module renders today.
 */
export interface GeneratedFunction {
  /** The function's name, as the migrations' `CREATE ... FUNCTION <name>(`. */
  readonly name: string;
  /** The statements that (re)define it, as its routine file holds them. */
  readonly text: string;
}

/** The generated functions, in the order the generator writes them. */
export function sqlApiFunctions(): GeneratedFunction[] {
  return [
    { name: 'lease_tasks', text: leaseTasksFunction() },
    { name: 'modify_lease', text: modifyLeaseFunction() },
    { name: 'delete_tasks', text: deleteTasksFunction() },
    { name: 'generated_name_time', text: generatedNameTimeFunction() },
    { name: 'generate_task_names', text: generateTaskNamesFunction() },
    { name: 'refuse_add', text: `${refuseAddFunction()}\n${REFUSE_ADD_SETTINGS}` },
    {
      name: 'add_tasks',
      text: `${addTasksFunction()}\n${settings('add_tasks(text, bytea[], text[], text[], timestamptz[])')}`,
    },
    { name: 'add_task', text: addTaskFunction() },
    {
      name: 'add_push_task',
      text: `${addPushTaskFunction()}\n${settings(ADD_PUSH_TASK_SIGNATURE)}\n${addPushTaskGrants()}`,
    },
    // Not the SQL API's, the dispatcher's: kept with the service's delete the same way.
    { name: 'claim_push_tasks_after_delivery', text: claimAfterDeliveryFunction() },
  ];
}

/** A statement's eta_usec (usecOf) as the timestamptz again, exactly: whole seconds and the microsecond rest apart. */
const FROM_ETA_USEC =
  "timestamptz 'epoch' + (r.eta_usec / 1000000) * interval '1 second' + (r.eta_usec % 1000000) * interval '1 microsecond'";

/** The ALTER that gives a generated function the schema's fixed search_path and planner settings again (CREATE OR REPLACE replaced them). */
function settings(signature: string): string {
  return `-- CREATE OR REPLACE replaces a function's SET clauses: the schema's fixed
-- search_path and planner settings again (docs/sql-api.md).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION ${signature} SET search_path = %I, pg_catalog, pg_temp', current_schema());
  ALTER FUNCTION ${signature}
    SET enable_bitmapscan = off SET enable_hashjoin = off SET enable_mergejoin = off
    SET plan_cache_mode = force_generic_plan SET jit = off;
END
$$;
`;
}

/**
 * refuse_add reads tasks and the retention setting: the fixed search_path
 * of every such function of the schema, and nobody but the
 * owner may call it (the SQL API's functions call it with the owner's rights).
 */
const REFUSE_ADD_SETTINGS = `DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION refuse_add(integer, integer, bigint, text, text[], boolean, text) SET search_path = %I, pg_catalog, pg_temp', current_schema());
END
$$;
REVOKE ALL ON FUNCTION refuse_add(integer, integer, bigint, text, text[], boolean, text) FROM PUBLIC;
`;

/** Every shape of the service's lease, in the branch order of lease_tasks. */
function leaseShapes(): LeaseShape[] {
  const shapes: LeaseShape[] = [];
  for (const filter of ['any', 'tag', 'oldest'] as TagFilter['kind'][]) {
    for (const rate of [false, true]) {
      for (const maxLeases of [false, true]) {
        for (const budgetBinds of [false, true]) shapes.push({ filter, rate, maxLeases, budgetBinds });
      }
    }
  }
  return shapes;
}

/** The PL/pgSQL condition that picks a shape's branch. */
function shapeCondition(shape: LeaseShape): string {
  return [
    shape.filter === 'tag' ? 'v_tag IS NOT NULL' : 'v_tag IS NULL',
    ...(shape.filter === 'tag' ? [] : [shape.filter === 'oldest' ? 'v_group' : 'NOT v_group']),
    shape.rate ? 'v_rate_calls IS NOT NULL' : 'v_rate_calls IS NULL',
    shape.maxLeases ? 'v_max_leases IS NOT NULL' : 'v_max_leases IS NULL',
    shape.budgetBinds ? 'v_budget_binds' : 'NOT v_budget_binds',
  ].join(' AND ');
}

/**
 * lease_tasks: the checks of its arguments, then one branch per shape of
 * the service's lease, each the builder's statement (leaseStatement) with
 * the queue's settings from its row and the in-process payload budget. The
 * statement reports the pause (its queue_state), which raises QUEUE_PAUSED
 * as the in-process lease does.
 */
function leaseTasksFunction(): string {
  const values: LeaseValues = {
    queueId: v('v_queue_id'),
    maxTasks: v('v_max_tasks'),
    leaseMs: v('v_lease_ms'),
    rateWindowSeconds: v('v_rate_seconds'),
    rateCalls: v('v_rate_calls'),
    maxLeases: v('v_max_leases'),
    payloadBudgetBytes: sql.raw(String(LIMITS.maxLeasePayloadBytes)),
    tag: v('v_tag'),
  };
  const branches = leaseShapes().map((shape, i) => {
    const statement = statementText(leaseStatement(tableOf, shape, values));
    return `  ${i === 0 ? 'IF' : 'ELSIF'} ${shapeCondition(shape)} THEN
    FOR r IN
${indent(statement, 6)}
    LOOP
      v_paused := r.paused;
      CONTINUE WHEN r.name IS NULL;
      v_out := (r.name, r.payload, r.tag, r.retry_count, ${FROM_ETA_USEC});
      RETURN NEXT v_out;
    END LOOP;`;
  });
  return `CREATE OR REPLACE FUNCTION lease_tasks(queue text, max_tasks integer, lease_seconds integer, tag text DEFAULT NULL,
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
  IF v_max_tasks IS NULL OR v_max_tasks < 1 OR v_max_tasks > ${LIMITS.maxTasksPerLease} THEN
    RAISE EXCEPTION 'max_tasks: must be from 1 to ${LIMITS.maxTasksPerLease}, got %', coalesce(v_max_tasks::text, 'NULL')
      USING ERRCODE = 'TQ015', DETAIL = coalesce(v_max_tasks::text, ''), HINT = 'INVALID_REQUEST';
  END IF;
${LEASE_SECONDS_CHECK}  IF octet_length(v_tag) > ${LIMITS.maxTagBytes} THEN
    RAISE EXCEPTION 'tag size: tag must be <= ${LIMITS.maxTagBytes} bytes, got a % byte tag', octet_length(v_tag)
      USING ERRCODE = 'TQ007', DETAIL = left(v_tag, ${LIMITS.maxTagBytes}), HINT = 'INVALID_TAG';
  END IF;
  v_queue_id := q.id;
  v_rate_seconds := q.lease_rate_seconds;
  v_rate_calls := CASE WHEN q.lease_rate_seconds IS NOT NULL THEN q.lease_rate_calls END;
  v_max_leases := q.max_leases;
  -- As the service's leaseShapeOf: the running sum only where the budget could bind, for
  -- more tasks than the ${LIMITS.maxLeasePayloadBytes} bytes always hold (tasksAlwaysFitting).
  v_budget_binds := v_max_tasks > ${tasksAlwaysFitting(LIMITS.maxLeasePayloadBytes)};

  -- The service's lease statement of each shape (src/store/lease-tasks.ts
  -- explains each step), generated from its builder: one branch per shape,
  -- so each statement keeps its own plan, as the service's prepared ones do.
${branches.join('\n')}
  END IF;
  IF v_paused THEN
    -- As the in-process lease: a paused queue leases nothing and counts no call.
    RAISE EXCEPTION 'queue paused: queue "%" is paused; leases return no tasks until it is resumed', queue
      USING ERRCODE = 'TQ014', DETAIL = queue, HINT = 'QUEUE_PAUSED';
  END IF;
END
$$;

${settings('lease_tasks(text, integer, integer, text, boolean)')}`;
}

/**
 * modify_lease: its checks, then the service's fenced modify (no tag, no
 * error) with its variables; a modify that matched nothing is explained as
 * the service explains it (lease expired, deleted, unknown), a name held by
 * its form answering deleted as TaskQueue.updateTask does.
 */
function modifyLeaseFunction(): string {
  const statement = statementText(
    modifyLeaseStatement(tableOf, {
      queueId: v('v_queue_id'),
      name: v('v_name'),
      leaseMs: v('v_lease_ms'),
      token: v('v_token'),
    }),
  );
  return `CREATE OR REPLACE FUNCTION modify_lease(queue text, name text, lease_expires_at timestamptz, lease_seconds integer)
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
  v_live     boolean;
  v_deleted  boolean;
BEGIN
  SELECT * INTO q FROM queues WHERE queues.name = queue AND queues.active AND queues.mode = 'pull';
  IF NOT FOUND THEN
    q := sql_api_queue(queue, true, 'modify the lease of');  -- raises the error that fits
  END IF;
${LEASE_SECONDS_CHECK}  IF v_token IS NULL THEN
    RAISE EXCEPTION 'lease_expires_at: the task''s lease token (the expiry its lease returned) is required'
      USING ERRCODE = 'TQ015', DETAIL = coalesce(v_name, ''), HINT = 'INVALID_REQUEST';
  END IF;
  v_queue_id := q.id;
  -- The service's modify (src/store/modify-lease.ts), generated from its
  -- builder: fenced by the token, only while eta is still the expiry the
  -- caller was handed and lies ahead.
  FOR r IN
${indent(statement, 4)}
  LOOP
    RETURN ${FROM_ETA_USEC};
  END LOOP;
  -- Why it matched nothing, as the service explains it (whyNotModifiedStatement).
${indent(statementText(whyNotModifiedStatement(tableOf, routineOf, { queueId: v('v_queue_id'), name: v('v_name') })), 2)}
    INTO v_live, v_deleted;
  IF v_live THEN
    RAISE EXCEPTION 'lease expired: the lease on task "%" has expired or is held by another lease; it could not be modified', v_name
      USING ERRCODE = 'TQ012', DETAIL = v_name, HINT = 'TASK_LEASE_EXPIRED';
  END IF;
  IF v_deleted OR held_by_form(v_name) THEN
    RAISE EXCEPTION 'tombstoned: task "%" has been deleted', v_name
      USING ERRCODE = 'TQ001', DETAIL = v_name, HINT = 'TOMBSTONED_TASK';
  END IF;
  RAISE EXCEPTION 'unknown task: task "%" does not exist', v_name
    USING ERRCODE = 'TQ013', DETAIL = coalesce(v_name, ''), HINT = 'UNKNOWN_TASK';
END
$$;

${settings('modify_lease(text, text, timestamptz, integer)')}`;
}

/**
 * delete_tasks: its checks (a one-dimensional array of at most the
 * limit's names), which names are held by their form (the
 * retention read once per call), then the service's delete of that shape
 * (a plain delete when every name is held by its form, else with the
 * tombstones of the others) with its variables.
 */
function deleteTasksFunction(): string {
  const values = { queueId: v('v_queue_id'), names: v('v_names'), untracked: v('v_untracked'), audited: sql`` };
  const loop = (allUntracked: boolean) => `    FOR r IN
${indent(statementText(deleteStatement(tableOf, allUntracked, values)), 6)}
    LOOP
      v_count := v_count + 1;
      v_deleted[v_count] := r.name;
    END LOOP;`;
  return `CREATE OR REPLACE FUNCTION delete_tasks(queue text, names text[])
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
  -- As add_tasks: a two-dimensional array is refused, not read flat.
  IF array_ndims(names) > 1 THEN
    RAISE EXCEPTION 'arguments: names must be a one-dimensional array, got % dimensions', array_ndims(names)
      USING ERRCODE = 'TQ015', DETAIL = array_ndims(names)::text, HINT = 'INVALID_REQUEST';
  END IF;
${batchSizeCheck(LIMITS.maxTasksPerDelete, 'deleted')}  v_queue_id := q.id;
  -- held_by_form, with the retention read once for the whole call.
  v_held_from := now() - tombstone_retention();
  v_untracked := ARRAY(SELECT x FROM unnest(v_names) x WHERE generated_name_time(x) > v_held_from);
  -- The service's delete of each shape (src/store/delete-tasks.ts),
  -- generated from its builder.
  IF cardinality(v_untracked) = n THEN
${loop(true)}
  ELSE
${loop(false)}
  END IF;
  RETURN ARRAY(SELECT coalesce(x = ANY (v_deleted), false) FROM unnest(v_names) WITH ORDINALITY AS u (x, i) ORDER BY i);
END
$$;

${settings('delete_tasks(text, text[])')}`;
}
