import pg from 'pg';
import { now } from './rest-caller.js';
import { payloadOf } from './payloads.js';
import { sleep } from './sleep.js';
import { anomaly, MAX_PAYLOAD, randomInt, type Workload } from './workload.js';

/**
 * A consumer through the SQL API (docs/sql-api.md) beside the REST consumers of
 * the same queue: leases 1-50 tasks for 1-5 s with lease_tasks, checks each
 * payload byte for byte, and deletes them with delete_tasks. Its
 * leases go into the same ledger, so the checks at the end hold it to the
 * same promises: no task held by two unexpired leases at once, whatever
 * path took it. Its own connection, opened again after an outage or a kill.
 */
export async function runSqlConsumer(
  workload: Workload,
  id: number,
  queue: string,
  databaseUrl: string,
): Promise<SqlConsumerCounts> {
  const counts: SqlConsumerCounts = { leaseCalls: 0, tasksLeased: 0, deletes: 0 };
  let client: pg.Client | null = null;
  while (!workload.stopped()) {
    try {
      if (!client) {
        client = new pg.Client({ connectionString: databaseUrl });
        client.on('error', () => {});
        await client.connect();
      }
      await workload.pace();
      await consumeOnce(workload, id, queue, client, counts);
    } catch (error) {
      const code = String((error as { code?: unknown }).code ?? '');
      // Outages and restarts of the database are the chaos's doing; anything else is not expected.
      if (!/^(08|57P|53)/.test(code) && !/terminat|ECONN|closed|not queryable/i.test(String(error))) {
        anomaly(workload, 'SQL consumer failed', String(error));
      }
      await client?.end().catch(() => {});
      client = null;
      await sleep(200);
    }
  }
  await client?.end().catch(() => {});
  return counts;
}

/** What the SQL consumer did, for the run's summary. */
export interface SqlConsumerCounts {
  leaseCalls: number;
  tasksLeased: number;
  deletes: number;
}

async function consumeOnce(
  workload: Workload,
  id: number,
  queue: string,
  client: pg.Client,
  counts: SqlConsumerCounts,
): Promise<void> {
  const numTasks = randomInt(1, 50);
  const leaseSecs = randomInt(1, 5);
  const start = now();
  const result = await client.query<{ name: string; payload: Buffer; retry_count: number; expiry_usec: string }>(
    `select name, payload, retry_count,
            (extract(epoch from lease_expires_at) * 1000000)::int8::text as expiry_usec
       from taskqueue.lease_tasks($1, $2, $3)`,
    [queue, numTasks, leaseSecs],
  );
  const end = now();
  workload.countOps(1);
  workload.ledger.leaseCalls += 1;
  const tasks = result.rows;
  counts.leaseCalls += 1;
  counts.tasksLeased += tasks.length;
  if (tasks.length > numTasks)
    anomaly(workload, 'lease_tasks answered more tasks than asked', `${tasks.length} > ${numTasks}`);
  for (const task of tasks) {
    workload.ledger.recordLease(task.name, {
      consumer: id,
      start,
      end,
      leaseSecs,
      expiryUsec: Number(task.expiry_usec),
      retryCount: task.retry_count,
      payloadOk: task.payload.equals(
        task.name.startsWith('probe-') ? Buffer.from(task.name) : payloadOf(task.name, MAX_PAYLOAD),
      ),
    });
  }
  if (tasks.length === 0) {
    workload.ledger.emptyLeases += 1;
    await sleep(100);
    return;
  }
  const names = tasks.map((task) => task.name);
  for (const name of names) workload.ledger.attemptedDeletes.add(name);
  const deleted = await client.query<{ d: boolean[] }>(`select taskqueue.delete_tasks($1, $2::text[]) as d`, [
    queue,
    names,
  ]);
  const at = now();
  workload.countOps(names.length);
  deleted.rows[0]!.d.forEach((ok, i) => {
    if (!ok) return;
    workload.ledger.recordDelete(names[i]!, at);
    counts.deletes += 1;
  });
}
