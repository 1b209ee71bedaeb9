import type { TaskRetryOptions } from '../../src/core/push/push-task.js';
import type { TestService } from '../helpers/engines.js';

/** A push task to add, as both paths take it. */
export interface PushTaskInput {
  readonly name?: string;
  readonly url?: string;
  readonly method?: string;
  /** Header pairs in order (the SQL path sends them as a jsonb list of pairs). */
  readonly headers?: readonly (readonly [string, string])[];
  readonly payload?: Buffer;
  /** Absolute ETA, microseconds since the epoch. */
  readonly etaUsec?: number;
  readonly dispatchDeadlineSeconds?: number;
  readonly retryOptions?: TaskRetryOptions;
}

/** The add of a push task through one way in: the in-process API or add_push_task; both answer the task's name. */
export interface PushPath {
  readonly kind: 'service' | 'sql';
  addPush(queue: string, task: PushTaskInput): Promise<string>;
}

export function pushPath(kind: PushPath['kind'], t: TestService): PushPath {
  if (kind === 'service') {
    return {
      kind,
      addPush: async (queue, task) => {
        const stored = await t.service.getQueue(queue).add({
          ...(task.name === undefined ? {} : { name: task.name }),
          ...(task.url === undefined ? {} : { url: task.url }),
          ...(task.method === undefined ? {} : { method: task.method as 'POST' }),
          ...(task.headers === undefined ? {} : { headers: task.headers }),
          ...(task.payload === undefined ? {} : { payload: task.payload }),
          ...(task.etaUsec === undefined ? {} : { etaUsec: task.etaUsec }),
          ...(task.dispatchDeadlineSeconds === undefined
            ? {}
            : { dispatchDeadlineSeconds: task.dispatchDeadlineSeconds }),
          ...(task.retryOptions === undefined ? {} : { retryOptions: task.retryOptions }),
        });
        return stored.name;
      },
    };
  }
  return {
    kind,
    addPush: async (queue, task) => {
      // Only the arguments given, by name: the function's defaults stand for the rest.
      const params: unknown[] = [queue];
      const args: string[] = [];
      const arg = (name: string, value: unknown, cast: string) => {
        params.push(value);
        args.push(`${name} => ${cast.replace('$', `$${params.length}`)}`);
      };
      if (task.url !== undefined) arg('url', task.url, '$::text');
      if (task.method !== undefined) arg('method', task.method, '$::text');
      if (task.headers !== undefined) arg('headers', JSON.stringify(task.headers), '$::jsonb');
      // Payloads as hex text, so both drivers send the same thing.
      if (task.payload !== undefined) arg('payload', task.payload.toString('hex'), "decode($::text, 'hex')");
      if (task.name !== undefined) arg('name', task.name, '$::text');
      if (task.etaUsec !== undefined)
        arg('eta', task.etaUsec, "timestamptz 'epoch' + $::int8 * interval '1 microsecond'");
      if (task.dispatchDeadlineSeconds !== undefined)
        arg('dispatch_deadline_seconds', task.dispatchDeadlineSeconds, '$::float8');
      if (task.retryOptions !== undefined) arg('retry_options', JSON.stringify(task.retryOptions), '$::jsonb');
      const rows = await t.sql<{ name: string }>(
        `select ${t.schema}.add_push_task(${['$1', ...args].join(', ')}) as name`,
        params,
      );
      return rows[0]!.name;
    },
  };
}
