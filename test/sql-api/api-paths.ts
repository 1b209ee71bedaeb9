import { isQueueError } from '../../src/core/errors.js';
import { errorCodeOfSqlState } from '../../src/store/sql-api/sql-api-errors.js';
import type { TestService } from '../helpers/engines.js';

/** A task to add, as both paths take it. */
export interface NewTaskInput {
  readonly name?: string;
  readonly payload?: Buffer;
  readonly tag?: string;
  /** Absolute ETA, microseconds since the epoch. */
  readonly etaUsec?: number;
}

/** A leased task as both paths hand it out; `token` is what modify takes back. */
export interface LeasedTask {
  readonly name: string;
  readonly payload: Buffer;
  readonly tag: string | null;
  readonly retryCount: number;
  readonly token: unknown;
}

export interface LeaseInput {
  readonly maxTasks: number;
  readonly leaseSeconds: number;
  readonly tag?: string;
  readonly groupByTag?: boolean;
}

/**
 * The operations the behaviour suite runs, through one of the two ways in:
 * the in-process API, or the SQL API's functions. Both answer the
 * same shapes, and fail with the service's error code (for the SQL path,
 * read from the SQLSTATE through the one table, sql-api-errors.ts).
 */
export interface ApiPath {
  readonly kind: 'service' | 'sql';
  add(queue: string, tasks: readonly NewTaskInput[]): Promise<string[]>;
  lease(queue: string, input: LeaseInput): Promise<LeasedTask[]>;
  modify(queue: string, name: string, token: unknown, leaseSeconds: number): Promise<unknown>;
  delete(queue: string, name: string): Promise<boolean>;
  deleteMany(queue: string, names: readonly string[]): Promise<boolean[]>;
}

export const PATH_KINDS = ['service', 'sql'] as const;

export function apiPath(kind: ApiPath['kind'], t: TestService): ApiPath {
  return kind === 'service' ? servicePath(t) : sqlPath(t);
}

function servicePath(t: TestService): ApiPath {
  const q = (name: string) => t.service.getQueue(name);
  return {
    kind: 'service',
    add: async (queue, tasks) => {
      const stored = await q(queue).add(
        // Pull tasks, as add_task adds: on a push queue that is INVALID_QUEUE_MODE on both paths.
        tasks.map((task) => ({
          method: 'PULL' as const,
          ...(task.name === undefined ? {} : { name: task.name }),
          ...(task.payload === undefined ? {} : { payload: task.payload }),
          ...(task.tag === undefined ? {} : { tag: task.tag }),
          ...(task.etaUsec === undefined ? {} : { etaUsec: task.etaUsec }),
        })),
      );
      return stored.map((task) => task.name);
    },
    lease: async (queue, input) => {
      const tasks = await q(queue).leaseTasks({
        maxTasks: input.maxTasks,
        lease: input.leaseSeconds,
        ...(input.tag === undefined ? {} : { tag: input.tag }),
        ...(input.groupByTag === undefined ? {} : { groupByTag: input.groupByTag }),
      });
      return tasks.map((task) => ({
        name: task.name,
        payload: task.payload,
        tag: task.tag,
        retryCount: task.retryCount,
        token: task.etaUsec,
      }));
    },
    modify: async (queue, name, token, leaseSeconds) =>
      (await q(queue).modifyTaskLease({ name, etaUsec: token as number }, leaseSeconds)).etaUsec,
    delete: (queue, name) => q(queue).deleteTask(name),
    deleteMany: (queue, names) => q(queue).deleteTask(names),
  };
}

function sqlPath(t: TestService): ApiPath {
  const fn = (name: string) => `${t.schema}.${name}`;
  return {
    kind: 'sql',
    add: async (queue, tasks) => {
      // Payloads as hex text, so both drivers send the same thing.
      const rows = await t.sql<{ names: string[] }>(
        `select ${fn('add_tasks')}($1, array(select decode(p, 'hex') from unnest($2::text[]) with ordinality u (p, i) order by i),
                $3::text[], $4::text[],
                array(select timestamptz 'epoch' + e * interval '1 microsecond' from unnest($5::int8[]) with ordinality u (e, i) order by i)) as names`,
        [
          queue,
          tasks.map((task) => (task.payload ?? Buffer.alloc(0)).toString('hex')),
          tasks.map((task) => task.name ?? null),
          tasks.map((task) => task.tag ?? null),
          tasks.map((task) => task.etaUsec ?? null),
        ],
      );
      return rows[0]!.names;
    },
    lease: async (queue, input) => {
      const rows = await t.sql<{
        name: string;
        payload: string;
        tag: string | null;
        retry_count: number;
        token: string;
      }>(
        `select name, encode(payload, 'hex') as payload, tag, retry_count, lease_expires_at::text as token
           from ${fn('lease_tasks')}($1, $2, $3, $4, $5)`,
        [queue, input.maxTasks, input.leaseSeconds, input.tag ?? null, input.groupByTag ?? false],
      );
      return rows.map((row) => ({
        name: row.name,
        payload: Buffer.from(row.payload, 'hex'),
        tag: row.tag,
        retryCount: row.retry_count,
        token: row.token,
      }));
    },
    modify: async (queue, name, token, leaseSeconds) =>
      (
        await t.sql<{ e: string }>(`select ${fn('modify_lease')}($1, $2, $3::timestamptz, $4)::text as e`, [
          queue,
          name,
          token,
          leaseSeconds,
        ])
      )[0]!.e,
    delete: async (queue, name) =>
      (await t.sql<{ d: boolean }>(`select ${fn('delete_task')}($1, $2) as d`, [queue, name]))[0]!.d,
    deleteMany: async (queue, names) =>
      (await t.sql<{ d: boolean[] }>(`select ${fn('delete_tasks')}($1, $2::text[]) as d`, [queue, names]))[0]!.d,
  };
}

/** The service's error code of a failed call on either path (rejects when it did not fail). */
export async function errorCodeOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    if (isQueueError(error)) return error.code;
    const sqlState = (error as { code?: unknown }).code;
    if (typeof sqlState === 'string') return errorCodeOfSqlState(sqlState) ?? `SQLSTATE ${sqlState}: ${String(error)}`;
    throw error;
  }
  throw new Error('expected the call to fail');
}
