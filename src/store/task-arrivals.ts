import { sql } from 'kysely';
import pg from 'pg';
import type { Logger } from '../core/logger.js';
import type { QueueRef } from '../core/task-store.js';
import type { OpenDatabase } from './engine/database.js';
import { table, type StoreContext } from './store-context.js';

/** The channel the tasks_after_insert trigger notifies (sql/0007). */
const CHANNEL = 'taskqueue_tasks';

/** How often waiters re-check for leasable tasks (expired leases send no notification). */
const PROBE_INTERVAL_MS = 1000;
/** The same without notifications (behind a pooler with no direct LISTEN connection): the probe is all there is. */
const POLL_INTERVAL_MS = 250;

/** How long a mark in queue_waiters lasts, and how often a waiting process renews it. */
const MARK_TTL_SECONDS = 60;
const MARK_RENEW_MS = 20_000;

interface Waiter {
  readonly wake: () => void;
}

/**
 * Lets lease calls wait for tasks without holding a database connection
 * each: one LISTEN connection per process (opened on first use, reopened
 * after errors) wakes the waiters of a queue when its trigger notifies, and
 * one coalesced probe per queue per second catches what no notification
 * announces (an expired lease, a released one).
 */
export class TaskArrivals {
  readonly #database: OpenDatabase;
  readonly #ctx: StoreContext;
  readonly #waiters = new Map<number, Set<Waiter>>();
  /** When this process last marked each queue as waited on (queue_waiters). */
  readonly #marked = new Map<number, number>();
  #listening: Promise<void> | null = null;
  #listenClient: pg.Client | null = null;
  #unlisten: (() => Promise<void>) | null = null;
  #probeTimer: NodeJS.Timeout | null = null;
  #closed = false;
  readonly #logger: Logger;
  /** Whether the last attempt to LISTEN failed: only the first of a run of failures is logged as a warning. */
  #listenFailing = false;

  /** False behind a pooler without a direct connection for LISTEN: waiters poll instead. */
  readonly #notified: boolean;

  constructor(database: OpenDatabase, ctx: StoreContext, logger: Logger) {
    this.#database = database;
    this.#ctx = ctx;
    this.#logger = logger;
    this.#notified = database.listen !== null;
    if (!this.#notified) {
      logger.info(
        {},
        'task notifications: off (a pooler, and no TASKQUEUE_LISTEN_DATABASE_URL); long-polls check every 250 ms',
      );
    }
  }

  wait(params: QueueRef & { readonly timeoutMs: number; readonly signal?: AbortSignal }): Promise<void> {
    if (this.#closed || params.timeoutMs <= 0 || params.signal?.aborted) return Promise.resolve();
    this.#listen();
    this.#mark(params.queueId);
    return new Promise<void>((resolve) => {
      const set = this.#waiters.get(params.queueId) ?? new Set<Waiter>();
      this.#waiters.set(params.queueId, set);
      const done = () => {
        clearTimeout(timer);
        params.signal?.removeEventListener('abort', done);
        set.delete(waiter);
        if (set.size === 0) this.#waiters.delete(params.queueId);
        if (this.#waiters.size === 0) this.#stopProbe();
        resolve();
      };
      const waiter: Waiter = { wake: done };
      const timer = setTimeout(done, params.timeoutMs);
      params.signal?.addEventListener('abort', done, { once: true });
      set.add(waiter);
      this.#startProbe();
    });
  }

  /** Wakes every waiter of a queue (also called by this process after it adds tasks). */
  wake(queueId: number): void {
    const set = this.#waiters.get(queueId);
    if (!set) return;
    for (const waiter of [...set]) waiter.wake();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#stopProbe();
    for (const id of [...this.#waiters.keys()]) this.wake(id);
    await this.#unlisten?.().catch(() => {});
    await this.#listenClient?.end().catch(() => {});
  }

  #listen(): void {
    if (this.#listening || !this.#notified) return;
    this.#listening = this.#openListener().then(
      () => {
        if (this.#listenFailing) this.#logger.info({}, 'task notifications: listening again');
        this.#listenFailing = false;
      },
      (error: unknown) => {
        // Could not listen (database down): the probe still wakes waiters
        // (within a second); the next wait() tries to listen again.
        this.#listening = null;
        const fields = { err: error instanceof Error ? error.message : String(error) };
        if (this.#listenFailing) this.#logger.debug(fields, 'task notifications: could not listen');
        else
          this.#logger.warn(
            fields,
            'task notifications: could not listen; long-polls fall back to once-a-second checks',
          );
        this.#listenFailing = true;
      },
    );
  }

  async #openListener(): Promise<void> {
    const onPayload = (payload: string | undefined) => {
      const [schema, id] = (payload ?? '').split(':');
      if (schema === this.#ctx.schema && id !== undefined) this.wake(Number(id));
    };
    if (this.#database.pglite) {
      this.#unlisten = await this.#database.pglite.listen(CHANNEL, onPayload);
      return;
    }
    const pool = this.#database.pool;
    if (!pool) return;
    const client = new pg.Client({
      ...pool.options,
      ...(this.#database.listen ? { connectionString: this.#database.listen.connectionString } : {}),
      statement_timeout: undefined,
      query_timeout: undefined,
    });
    client.on('notification', (message) => onPayload(message.payload));
    const reset = () => {
      if (this.#listenClient === client) {
        this.#listenClient = null;
        this.#listening = null;
      }
      client.end().catch(() => {});
    };
    client.on('error', reset);
    client.on('end', reset);
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    if (this.#closed) {
      await client.end();
      return;
    }
    this.#listenClient = client;
  }

  #startProbe(): void {
    if (this.#probeTimer) return;
    this.#probeTimer = setInterval(() => void this.#probe(), this.#notified ? PROBE_INTERVAL_MS : POLL_INTERVAL_MS);
    this.#probeTimer.unref();
  }

  #stopProbe(): void {
    if (this.#probeTimer) clearInterval(this.#probeTimer);
    this.#probeTimer = null;
  }

  /**
   * Marks a queue as waited on, so adds notify it (sql/0005 and 0007: the trigger
   * notifies only marked queues, because NOTIFY serialises commits). Renewed
   * while waiters remain; the mark simply expires after they are gone.
   */
  #mark(queueId: number): void {
    // Nobody listens: a mark would only make adds notify for nothing.
    if (!this.#notified) return;
    const last = this.#marked.get(queueId);
    if (last !== undefined && Date.now() - last < MARK_RENEW_MS) return;
    this.#marked.set(queueId, Date.now());
    sql`/* mark_waiting */
      insert into ${table(this.#ctx, 'queue_waiters')} as w (queue_id, until)
      values (${queueId}, now() + ${MARK_TTL_SECONDS}::int4 * interval '1 second')
      on conflict (queue_id) do update set until = excluded.until
        where w.until < excluded.until`
      .execute(this.#ctx.db)
      .catch(() => this.#marked.delete(queueId));
  }

  /** One query for all waiting queues: which of them have a leasable task now? */
  async #probe(): Promise<void> {
    const ids = [...this.#waiters.keys()];
    if (ids.length === 0) return;
    for (const id of ids) this.#mark(id);
    try {
      const result = await sql<{ queue_id: number }>`/* probe_arrivals */
        select q.id as queue_id
          from unnest(${ids}::int4[]) as q(id)
         where exists (select 1 from ${table(this.#ctx, 'tasks')} t where t.queue_id = q.id and t.eta <= now())`.execute(
        this.#ctx.db,
      );
      for (const row of result.rows) this.wake(row.queue_id);
    } catch {
      // The database is unavailable: waiters time out and their lease call reports it.
    }
  }
}
