import { sql } from 'kysely';
import type { DepthHistory, DepthSample, DepthSeries } from '../core/depth-history.js';
import { QueueError } from '../core/errors.js';
import { table, toNumber, type StoreContext } from './store-context.js';
import { translateError } from './translate-error.js';

/** Depth samples in sql/0013's table: one insert of every queue per sample, one read per chart. */
export class PgDepthHistory implements DepthHistory {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  async record(
    samples: readonly DepthSample[],
    options: { readonly bucketSeconds: number; readonly keepSeconds: number },
  ): Promise<void> {
    const { bucketSeconds, keepSeconds } = options;
    if (!Number.isInteger(bucketSeconds) || bucketSeconds < 1 || !Number.isInteger(keepSeconds) || keepSeconds < 1) {
      throw new QueueError('INVALID_REQUEST', 'depth samples need whole, positive seconds', { field: 'bucketSeconds' });
    }
    try {
      if (samples.length > 0) {
        // The bucket comes from the database's clock, so every process agrees on it.
        await sql`/* depth_record */
          insert into ${table(this.#ctx, 'queue_depth_samples')} (queue, at, available, leased, delayed)
          select s.queue, to_timestamp(floor(extract(epoch from now()) / ${bucketSeconds}::int4) * ${bucketSeconds}::int4), s.available, s.leased, s.delayed
            from unnest(${samples.map((s) => s.queue)}::text[], ${samples.map((s) => s.available)}::int4[],
                        ${samples.map((s) => s.leased)}::int4[], ${samples.map((s) => s.delayed)}::int4[])
                 as s(queue, available, leased, delayed)
          on conflict (queue, at) do update
            set available = excluded.available, leased = excluded.leased, delayed = excluded.delayed`.execute(
          this.#ctx.db,
        );
      }
      await sql`/* depth_forget */
        delete from ${table(this.#ctx, 'queue_depth_samples')}
         where at < now() - make_interval(secs => ${keepSeconds}::int4)`.execute(this.#ctx.db);
    } catch (error) {
      throw translateError(error, {});
    }
  }

  async series(queue: string, seconds: number): Promise<DepthSeries> {
    try {
      const result = await sql<{ at: unknown; available: number; leased: number; delayed: number }>`/* depth_series */
        select extract(epoch from at)::int8 as at, available, leased, delayed
          from ${table(this.#ctx, 'queue_depth_samples')}
         where queue = ${queue} and at >= now() - make_interval(secs => ${seconds}::int4)
         order by at`.execute(this.#ctx.db);
      return {
        at: result.rows.map((row) => toNumber(row.at)),
        available: result.rows.map((row) => row.available),
        leased: result.rows.map((row) => row.leased),
        delayed: result.rows.map((row) => row.delayed),
      };
    } catch (error) {
      throw translateError(error, { queue });
    }
  }

  async availableAgo(seconds: number): Promise<Map<string, number>> {
    try {
      // One minute of samples of every queue, by the index on at: bounded at any number of queues' hours.
      const result = await sql<{ queue: string; available: number }>`/* depth_available_ago */
        select distinct on (queue) queue, available
          from ${table(this.#ctx, 'queue_depth_samples')}
         where at >= now() - make_interval(secs => ${seconds}::int4)
           and at < now() - make_interval(secs => ${seconds}::int4) + interval '1 minute'
         order by queue, at`.execute(this.#ctx.db);
      return new Map(result.rows.map((row) => [row.queue, row.available]));
    } catch (error) {
      throw translateError(error, {});
    }
  }
}
