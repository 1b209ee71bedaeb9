import { hostname } from 'node:os';
import { sql, type RawBuilder } from 'kysely';
import type {
  ClaimedPushTask,
  DeliveredPush,
  DispatcherHeartbeat,
  PushClaim,
  PushClaimParams,
  PushOutcome,
  PushStore,
} from '../../core/push/dispatcher/push-store.js';
import type { PushRequest } from '../../core/push/push-task.js';
import type { QueueRef } from '../../core/task-store.js';
import type { PgTaskStore } from '../pg-task-store.js';
import { intervalFromMs, table, timestampFromUsec, toBuffer, toNumber, type StoreContext } from '../store-context.js';
import { StatementGroup } from '../statement-group.js';
import { deadLetterMove } from '../dead-letter-move.js';
import { deleteDelivered } from './push-delivered.js';
import { pushAttemptCtes } from '../task-attempts.js';

interface ClaimRow {
  name: string | null;
  payload: Uint8Array | null;
  push: PushRequest | string | null;
  retry_count: number | null;
  execution_count: number | null;
  eta_usec: unknown;
  claim_usec: unknown;
  first_try_usec: unknown;
  last_status: number | null;
  last_error: string | null;
  now_usec: unknown;
  wait_ms: number | null;
  /** claim_push_tasks_after_delivery only: true on the row of a delivered task it deleted. */
  delivered?: boolean;
}

/**
 * The dispatcher's store on PostgreSQL or PGlite: the claim is one call of
 * claim_push_tasks, or of claim_push_tasks_after_delivery when it writes successes first, which runs the same delete as
 * `delivered` (generated from push-delivered.ts); each other outcome is one
 * statement. Every outcome holds only while the task's eta is still the claim.
 */
export class PgPushStore implements PushStore {
  readonly #tasks: PgTaskStore;
  readonly #ctx: StoreContext;
  readonly #deliveries: StatementGroup<DeliveredPush, boolean>;

  constructor(tasks: PgTaskStore) {
    this.#tasks = tasks;
    this.#ctx = { db: tasks.database.db, schema: tasks.schema };
    this.#deliveries = new StatementGroup(
      (_key, requests) => this.#deliverCombined(requests),
      (batch) => batch.length < 500,
    );
  }

  claim(params: PushClaimParams): Promise<PushClaim> {
    return this.#guard(params.queueName, async () => {
      const done = params.delivered ?? [];
      const args = sql`${params.queueId}::int4, ${params.ratePerSecond}::float8, ${params.bucketSize}::float8,
          ${params.maxConcurrentRequests}::int4, ${params.limit}::int4, ${params.deadlineMs}::float8, ${params.marginMs}::float8`;
      const dispatcher = sql`${params.dispatcherId}::int8`;
      const result =
        done.length === 0
          ? await sql<ClaimRow>`/* claim_push_tasks */
        select * from ${sql.id(this.#ctx.schema, 'claim_push_tasks')}(${args}, ${dispatcher})`.execute(this.#ctx.db)
          : await sql<ClaimRow>`/* claim_push_tasks_after_delivery */
        select * from ${sql.id(this.#ctx.schema, 'claim_push_tasks_after_delivery')}(${args},
          ${done.map((d) => d.name)}::text[], ${done.map((d) => d.claimUsec)}::int8[], ${done.map((d) => d.tombstone)}::bool[], ${dispatcher})`.execute(
              this.#ctx.db,
            );
      const tasks: ClaimedPushTask[] = [];
      const gone = new Set<string>();
      let waitMs: number | null = null;
      for (const row of result.rows) {
        if (row.delivered === true) {
          gone.add(row.name!);
          continue;
        }
        if (row.name === null) {
          waitMs = row.wait_ms === null ? null : Number(row.wait_ms);
          continue;
        }
        tasks.push({
          name: row.name,
          body: toBuffer(row.payload),
          push: typeof row.push === 'string' ? (JSON.parse(row.push) as PushRequest) : row.push,
          attempt: row.retry_count ?? 1,
          executionCount: row.execution_count ?? 0,
          etaUsec: toNumber(row.eta_usec),
          claimUsec: toNumber(row.claim_usec),
          firstTryUsec: toNumber(row.first_try_usec),
          lastStatus: row.last_status,
          lastError: row.last_error,
          claimedUsec: toNumber(row.now_usec),
        });
      }
      return { tasks, waitMs, delivered: done.map((d) => gone.has(d.name)) };
    });
  }

  registerDispatcher(params: { readonly leaseMs: number }): Promise<string> {
    return this.#guard(undefined, async () => {
      const result = await sql<{ id: unknown }>`/* push_dispatcher_register */
        insert into ${table(this.#ctx, 'push_dispatchers')} (label, expires_at)
        values (${`${hostname()} pid ${process.pid}`}, now() + ${intervalFromMs(params.leaseMs)})
        returning id`.execute(this.#ctx.db);
      return String(result.rows[0]!.id);
    });
  }

  heartbeat(params: { readonly dispatcherId: string; readonly leaseMs: number }): Promise<DispatcherHeartbeat> {
    return this.#guard(undefined, async () => {
      const result = await sql<{ alive: boolean; recovered_queues: number[] }>`/* push_dispatcher_heartbeat */
        select * from ${sql.id(this.#ctx.schema, 'push_dispatcher_heartbeat')}(${params.dispatcherId}::int8, ${params.leaseMs}::float8)`.execute(
        this.#ctx.db,
      );
      const row = result.rows[0];
      return { alive: row?.alive === true, recoveredQueueIds: (row?.recovered_queues ?? []).map(Number) };
    });
  }

  retireDispatcher(dispatcherId: string): Promise<readonly number[]> {
    return this.#guard(undefined, async () => {
      const result = await sql<{ released_queues: number[] }>`/* push_dispatcher_retire */
        select * from ${sql.id(this.#ctx.schema, 'push_dispatcher_retire')}(${dispatcherId}::int8)`.execute(
        this.#ctx.db,
      );
      return (result.rows[0]?.released_queues ?? []).map(Number);
    });
  }

  /**
   * Successes of one queue share a statement when they come faster than one
   * statement ends (StatementGroup): at thousands of deliveries a second, a
   * delete per task would be most of the database's work.
   */
  delivered(params: DeliveredPush): Promise<boolean> {
    return this.#deliveries.submit(String(params.queueId), params);
  }

  #deliverCombined(requests: readonly DeliveredPush[]): Promise<boolean[]> {
    return this.#guard(requests[0]!.queueName, () => deleteDelivered(this.#ctx, requests));
  }

  failed(params: PushOutcome & { readonly delayMs: number }): Promise<boolean> {
    return this.#guard(params.queueName, async () => {
      const q = sql`${params.queueId}`;
      const result = await sql<{ n: unknown }>`/* push_failed */
        with failed as (
          update ${table(this.#ctx, 'tasks')}
             set eta = now() + ${intervalFromMs(params.delayMs)}, dispatched_at = null, claimed_by = null,
                 last_status = ${params.status}::int4, last_error = ${params.error},
                 execution_count = execution_count + ${params.executed ? 1 : 0}::int4
           where queue_id = ${q} and name = ${params.name} and eta = ${timestampFromUsec(params.claimUsec)}
          returning name, retry_count
        ), ${this.#attemptCtes(q, 'failed', params)}
        select count(*) as n from failed`.execute(this.#ctx.db);
      return toNumber(result.rows[0]?.n) > 0;
    });
  }

  deadLetter(params: PushOutcome): Promise<boolean> {
    return this.#guard(params.queueName, async () => {
      const q = sql`${params.queueId}`;
      const result = await sql<{ n: unknown }>`/* push_dead_letter */
        with gone as (
          delete from ${table(this.#ctx, 'tasks')}
           where queue_id = ${q} and name = ${params.name} and eta = ${timestampFromUsec(params.claimUsec)}
          returning name, tag, payload, retry_count, enqueued_at, push
        ), ${deadLetterMove((name) => table(this.#ctx, name), {
          queueId: q,
          source: 'gone',
          lastStatus: sql`${params.status}`,
          lastError: sql`${params.error}`,
        })}, ${this.#attemptCtes(q, 'gone', params)}
        select count(*) as n from gone`.execute(this.#ctx.db);
      return toNumber(result.rows[0]?.n) > 0;
    });
  }

  /** The attempt's record, in the statement that writes its outcome: one insert (sql/0019). */
  #attemptCtes(queueId: RawBuilder<unknown>, source: string, params: PushOutcome): RawBuilder<unknown> {
    return pushAttemptCtes((name) => table(this.#ctx, name), {
      queueId,
      source,
      status: params.status,
      error: params.error,
      responseExcerpt: params.responseExcerpt ?? null,
      durationMs: params.durationMs === undefined || params.durationMs === null ? null : Math.round(params.durationMs),
    });
  }

  throttle(params: QueueRef & { readonly slowMs: number; readonly holdMs: number }): Promise<void> {
    return this.#guard(params.queueName, async () => {
      // An empty bucket, then half the rate for a while: the handler said it is overloaded.
      await sql`/* push_throttle */
        update ${table(this.#ctx, 'push_queue_state')}
           set tokens = 0,
               slow_until = greatest(slow_until, now() + ${intervalFromMs(params.slowMs)}),
               hold_until = greatest(hold_until, now() + ${intervalFromMs(params.holdMs)})
         where queue_id = ${params.queueId}`.execute(this.#ctx.db);
    });
  }

  waitForTasks(params: QueueRef & { readonly timeoutMs: number; readonly signal?: AbortSignal }): Promise<void> {
    return this.#tasks.waitForTasks(params);
  }

  /** The task store's guard: errors translated, and an outage noticed (and logged once) by the same watch. */
  #guard<T>(queue: string | undefined, run: () => Promise<T>): Promise<T> {
    return this.#tasks.guardQuery(run, queue);
  }
}
