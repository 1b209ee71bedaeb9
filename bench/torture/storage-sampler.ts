import pg from 'pg';
import { sleep } from './sleep.js';

/**
 * Samples the bytes a queue counts against its storage limit (the sum of
 * its live tasks' size_bytes, the column the limit is enforced on) every
 * intervalMs, straight from the database, and keeps the largest. Survives
 * the database's outages (it reconnects).
 */
export class StorageSampler {
  max = 0;
  samples = 0;
  #running = true;
  readonly #done: Promise<void>;

  constructor(databaseUrl: string, queue: string, intervalMs = 50, schema = 'taskqueue') {
    this.#done = this.#loop(databaseUrl, queue, intervalMs, schema);
  }

  async #loop(databaseUrl: string, queue: string, intervalMs: number, schema: string): Promise<void> {
    let client: pg.Client | null = null;
    while (this.#running) {
      try {
        if (!client) {
          client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 2000 });
          client.on('error', () => undefined);
          await client.connect();
        }
        const result = await client.query<{ bytes: string }>(
          `select coalesce(sum(t.size_bytes), 0)::text as bytes from ${schema}.tasks t join ${schema}.queues q on q.id = t.queue_id where q.name = $1`,
          [queue],
        );
        this.max = Math.max(this.max, Number(result.rows[0]?.bytes ?? 0));
        this.samples += 1;
      } catch {
        await client?.end().catch(() => undefined);
        client = null;
      }
      await sleep(intervalMs);
    }
    await client?.end().catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.#running = false;
    await this.#done;
  }
}
