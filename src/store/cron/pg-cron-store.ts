import { sql } from 'kysely';
import type { CallerTransaction } from '../../core/caller-transaction.js';
import type { CronJob, CronRetryParameters } from '../../core/cron/cron-job.js';
import {
  RETIRED_CRON_JOB_DAYS,
  type CronClaim,
  type CronFiringRecord,
  type CronJobRecord,
  type CronStore,
  type RecordedCronOutcome,
} from '../../core/cron/cron-store.js';
import type { CronFiringRow } from '../../core/cron/cron-history.js';
import { table, type StoreContext } from '../store-context.js';
import { cronFiringRows } from './cron-firing-rows.js';
import { translateError } from '../translate-error.js';

interface CronJobRow {
  name: string;
  schedule: string;
  timezone: string;
  url: string;
  queue: string;
  description: string | null;
  target: string | null;
  retry: CronRetryParameters | string;
  last_instant_ms: number | string | null;
  last_fired_ms: number | string | null;
  anchored_ms: number | string;
  last_task: string | null;
  last_outcome: RecordedCronOutcome | null;
  last_error: string | null;
  retired_ms: number | string | null;
}

/** The cron jobs' record in sql/0017's table; times cross as epoch milliseconds, the same on both engines. */
export class PgCronStore implements CronStore {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  async now(): Promise<Date> {
    try {
      const result = await sql<{
        ms: number;
      }>`/* cron_now */ select (extract(epoch from now()) * 1000)::float8 as ms`.execute(this.#ctx.db);
      return new Date(Math.floor(Number(result.rows[0]!.ms)));
    } catch (error) {
      throw translateError(error);
    }
  }

  async syncJobs(jobs: readonly (CronJob & { readonly queue: string })[], now: Date): Promise<void> {
    try {
      const names = jobs.map((job) => job.name);
      const nowMs = now.getTime();
      await this.#ctx.db.transaction().execute(async (trx) => {
        // One sync at a time: two servers starting at once with different
        // files would otherwise lock the same rows in different orders.
        await sql`/* cron_sync_lock */ select pg_advisory_xact_lock(29809, hashtext(${`cron_sync:${this.#ctx.schema}`}))`.execute(
          trx,
        );
        // Jobs this file does not name are retired, not deleted (sql/0017):
        // a server started from another file may still fire them, and the
        // row holds their chain of instants. Only rows retired and unseen
        // by any server for the retirement period go.
        await sql`/* cron_sync_drop_retired */
          delete from ${table(this.#ctx, 'cron_jobs')}
           where not (name = any(${names}::text[])) and retired_at is not null
             and seen_at < to_timestamp(${nowMs}::float8 / 1000) - ${RETIRED_CRON_JOB_DAYS}::int4 * interval '1 day'`.execute(
          trx,
        );
        await sql`/* cron_sync_retire */
          update ${table(this.#ctx, 'cron_jobs')} set retired_at = to_timestamp(${nowMs}::float8 / 1000)
           where retired_at is null and not (name = any(${names}::text[]))`.execute(trx);
        if (jobs.length === 0) return;
        // Every job in one upsert over arrays, as queue sync does: start-up
        // pays one round trip however many jobs the file has (up to 250).
        await sql`/* cron_sync_jobs */
          insert into ${table(this.#ctx, 'cron_jobs')} (name, schedule, timezone, url, queue, description, target, retry, anchored_at, seen_at)
          select u.name, u.schedule, u.timezone, u.url, u.queue, u.description, u.target, u.retry,
                 to_timestamp(${nowMs}::float8 / 1000), to_timestamp(${nowMs}::float8 / 1000)
            from unnest(${names}::text[], ${jobs.map((job) => job.schedule)}::text[],
                        ${jobs.map((job) => job.timezone)}::text[], ${jobs.map((job) => job.url)}::text[],
                        ${jobs.map((job) => job.queue)}::text[], ${jobs.map((job) => job.description)}::text[],
                        ${jobs.map((job) => job.target)}::text[], ${jobs.map((job) => JSON.stringify(job.retry))}::jsonb[])
              as u (name, schedule, timezone, url, queue, description, target, retry)
          on conflict (name) do update
            set schedule = excluded.schedule, timezone = excluded.timezone, url = excluded.url, queue = excluded.queue,
                description = excluded.description, target = excluded.target, retry = excluded.retry, synced_at = excluded.synced_at,
                seen_at = excluded.seen_at, retired_at = null`.execute(trx);
      });
    } catch (error) {
      throw translateError(error);
    }
  }

  async markSeen(names: readonly string[], now: Date): Promise<void> {
    if (names.length === 0) return;
    try {
      await sql`/* cron_mark_seen */
        update ${table(this.#ctx, 'cron_jobs')} set seen_at = to_timestamp(${now.getTime()}::float8 / 1000)
         where name = any(${names}::text[])`.execute(this.#ctx.db);
    } catch (error) {
      throw translateError(error);
    }
  }

  async claimFiring(
    firing: { readonly job: string; readonly instant: Date; readonly task: string },
    add: (transaction: CallerTransaction) => Promise<void>,
  ): Promise<CronClaim> {
    const instant = firing.instant.getTime();
    try {
      return await this.#ctx.db.transaction().execute(async (trx) => {
        // The job's row is the lock: a second process's update waits for
        // this transaction, then re-reads the row and finds the instant
        // recorded (READ COMMITTED's re-check of the condition).
        const claim = await sql<{ claimed: boolean }>`/* cron_claim_firing */
          update ${table(this.#ctx, 'cron_jobs')}
             set last_instant = to_timestamp(${instant}::float8 / 1000), last_fired_at = now(),
                 last_task = ${firing.task}, last_outcome = 'added', last_error = null
           where name = ${firing.job}
             and (last_instant is null or last_instant < to_timestamp(${instant}::float8 / 1000)
                  or (last_instant = to_timestamp(${instant}::float8 / 1000) and last_outcome = 'failed'))
          returning true as claimed`.execute(trx);
        if (claim.rows.length === 0) {
          const known =
            await sql`/* cron_job_known */ select 1 from ${table(this.#ctx, 'cron_jobs')} where name = ${firing.job}`.execute(
              trx,
            );
          return known.rows.length === 0 ? 'unrecorded' : 'taken';
        }
        await add(trx);
        return 'claimed';
      });
    } catch (error) {
      // The add's own error is a QueueError already, and stays as it is.
      throw translateError(error);
    }
  }

  async recordFiring(firing: CronFiringRecord): Promise<void> {
    try {
      const instant = firing.scheduled ? firing.instant.getTime() : null;
      // A slower process's record of an earlier instant never hides a later
      // one, nor its failure the same instant's claim that added it; a run
      // leaves last_instant.
      await sql`/* cron_record_firing */
        update ${table(this.#ctx, 'cron_jobs')}
           set last_instant = coalesce(to_timestamp(${instant}::float8 / 1000), last_instant), last_fired_at = now(),
               last_task = ${firing.task}, last_outcome = ${firing.outcome}, last_error = ${firing.error}
         where name = ${firing.job}
           and (${instant}::float8 is null or last_instant is null or last_instant < to_timestamp(${instant}::float8 / 1000)
                or (last_instant = to_timestamp(${instant}::float8 / 1000) and last_outcome <> 'added'))`.execute(
        this.#ctx.db,
      );
    } catch (error) {
      throw translateError(error);
    }
  }

  async firingRows(params: {
    readonly job: string;
    readonly queue: string;
    readonly limit: number;
  }): Promise<CronFiringRow[]> {
    try {
      return await cronFiringRows(this.#ctx, params);
    } catch (error) {
      throw translateError(error, { queue: params.queue });
    }
  }

  async listJobs(): Promise<CronJobRecord[]> {
    try {
      const result = await sql<CronJobRow>`/* cron_list_jobs */
        select name, schedule, timezone, url, queue, description, target, retry,
               (extract(epoch from last_instant) * 1000)::float8 as last_instant_ms,
               (extract(epoch from last_fired_at) * 1000)::float8 as last_fired_ms,
               (extract(epoch from anchored_at) * 1000)::float8 as anchored_ms,
               last_task, last_outcome, last_error,
               (extract(epoch from retired_at) * 1000)::float8 as retired_ms
          from ${table(this.#ctx, 'cron_jobs')}
         order by name`.execute(this.#ctx.db);
      return result.rows.map(toRecord);
    } catch (error) {
      throw translateError(error);
    }
  }
}

function toRecord(row: CronJobRow): CronJobRecord {
  const retry = typeof row.retry === 'string' ? (JSON.parse(row.retry) as CronRetryParameters) : row.retry;
  const job: CronJob = {
    name: row.name,
    url: row.url,
    schedule: row.schedule,
    description: row.description,
    timezone: row.timezone,
    target: row.target,
    queue: row.queue,
    retry,
  };
  return {
    job,
    name: row.name,
    schedule: row.schedule,
    timezone: row.timezone,
    url: row.url,
    queue: row.queue,
    description: row.description,
    lastInstant: toDate(row.last_instant_ms),
    lastFiredAt: toDate(row.last_fired_ms),
    anchoredAt: new Date(Math.round(Number(row.anchored_ms))),
    lastTask: row.last_task,
    lastOutcome: row.last_outcome,
    lastError: row.last_error,
    retiredAt: toDate(row.retired_ms),
  };
}

function toDate(ms: number | string | null): Date | null {
  return ms === null ? null : new Date(Math.round(Number(ms)));
}
