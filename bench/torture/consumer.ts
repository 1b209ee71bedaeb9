import { batchAnswers, batchRequest } from './multipart-batch.js';
import { payloadOf } from './payloads.js';
import { now } from './rest-caller.js';
import { sleep } from './sleep.js';
import { anomaly, MAX_PAYLOAD, queuePath, randomInt, type Workload } from './workload.js';

export interface ConsumerRole {
  readonly id: number;
  readonly queue: string;
  /** Lets its leases lapse: never deletes what it leased. */
  readonly lapses: boolean;
  /** Pause after each round, ms (the storage-limited queue's consumer is slow on purpose). */
  readonly pauseMs: number;
}

interface LeasedTask {
  readonly id: string;
  readonly payloadBase64?: string;
  readonly leaseTimestamp: string;
  readonly retry_count: number;
}

/**
 * A consumer: leases 1-50 tasks for 1-5 s, checks each payload byte for
 * byte, and (unless it lets its leases lapse) deletes them at once by one
 * of the three ways: DELETE per task, tasks:batchDelete, or a multipart
 * batch of DELETEs.
 */
export async function runConsumer(workload: Workload, role: ConsumerRole): Promise<void> {
  const base = queuePath(role.queue);
  while (!workload.stopped()) {
    await workload.pace();
    const numTasks = randomInt(1, 50);
    const leaseSecs = randomInt(1, 5);
    const exchange = await workload.caller.call(
      'POST',
      `${base}/tasks/lease?numTasks=${numTasks}&leaseSecs=${leaseSecs}`,
    );
    if (exchange.status !== 0) workload.countOps(1);
    if (exchange.status !== 200) {
      if (exchange.status !== 0 && exchange.status !== 503)
        anomaly(workload, `lease answered ${exchange.status}`, exchange.body.toString());
      await sleep(50);
      continue;
    }
    workload.ledger.leaseCalls += 1;
    const items = (JSON.parse(exchange.body.toString('utf8')) as { items?: LeasedTask[] }).items ?? [];
    if (items.length > numTasks)
      anomaly(workload, 'lease answered more tasks than asked', `${items.length} > ${numTasks}`);
    const seen = new Set<string>();
    for (const task of items) {
      if (seen.has(task.id)) workload.ledger.duplicatesInOneLease.push(task.id);
      seen.add(task.id);
      const payload = Buffer.from(task.payloadBase64 ?? '', 'base64');
      workload.ledger.recordLease(task.id, {
        consumer: role.id,
        start: exchange.start,
        end: exchange.end,
        leaseSecs,
        expiryUsec: Number(task.leaseTimestamp),
        retryCount: task.retry_count,
        payloadOk: payload.equals(expectedPayload(task.id)),
      });
    }
    if (items.length === 0) {
      workload.ledger.emptyLeases += 1;
      await sleep(100);
      continue;
    }
    if (!role.lapses)
      await deleteTasks(
        workload,
        base,
        items.map((task) => task.id),
      );
    if (role.pauseMs > 0) await sleep(role.pauseMs);
  }
}

/** Probe tasks (added by the outage check) have payloads of their own; every other name's payload is its hash. */
function expectedPayload(name: string): Buffer {
  return name.startsWith('probe-') ? Buffer.from(name) : payloadOf(name, MAX_PAYLOAD);
}

async function deleteTasks(workload: Workload, base: string, names: string[]): Promise<void> {
  for (const name of names) workload.ledger.attemptedDeletes.add(name);
  const way = Math.random();
  if (way < 1 / 3) {
    for (const name of names) {
      await workload.pace();
      await withRetries(workload, async () => {
        const exchange = await workload.caller.call('DELETE', `${base}/tasks/${name}`);
        if (exchange.status !== 0) workload.countOps(1);
        if (exchange.status === 200) workload.ledger.recordDelete(name, exchange.end);
        else if (exchange.status !== 404) return unanswered(workload, 'DELETE', exchange.status, exchange.body);
        return true;
      });
    }
  } else if (way < 2 / 3) {
    await withRetries(workload, async () => {
      const exchange = await workload.caller.call('POST', `${base}/tasks:batchDelete`, {
        body: JSON.stringify({ ids: names }),
        headers: { 'content-type': 'application/json' },
      });
      if (exchange.status !== 200) return unanswered(workload, 'batchDelete', exchange.status, exchange.body);
      const answer = JSON.parse(exchange.body.toString('utf8')) as { deleted: string[]; notFound: string[] };
      workload.countOps(names.length);
      for (const name of answer.deleted) workload.ledger.recordDelete(name, exchange.end);
      if (answer.deleted.length + answer.notFound.length !== new Set(names).size) {
        anomaly(workload, 'batchDelete did not account for every name', exchange.body.toString());
      }
      return true;
    });
  } else {
    const batch = batchRequest(names.map((name) => ({ method: 'DELETE', path: `${base}/tasks/${name}` })));
    await withRetries(workload, async () => {
      const exchange = await workload.caller.call('POST', '/batch', {
        body: batch.body,
        headers: { 'content-type': batch.contentType },
      });
      if (exchange.status !== 200) return unanswered(workload, 'batch DELETE', exchange.status, exchange.body);
      const answers = batchAnswers(exchange.headers?.get('content-type') ?? null, exchange.body);
      workload.countOps(answers.length);
      if (answers.length !== names.length)
        anomaly(workload, 'batch DELETE: wrong number of answers', `${answers.length} for ${names.length}`);
      answers.forEach((answer, i) => {
        if (answer.status === 200) workload.ledger.recordDelete(names[i]!, exchange.end);
        else if (answer.status !== 404 && answer.status !== 503)
          anomaly(workload, `batch DELETE part answered ${answer.status}`, answer.body);
      });
      return true;
    });
  }
}

/** False (try again) for no answer or a 503; anything else unexpected is an anomaly, not retried. */
function unanswered(workload: Workload, what: string, status: number, body: Buffer): boolean {
  if (status === 0 || status === 503) return false;
  anomaly(workload, `${what} answered ${status}`, body.toString());
  return true;
}

/** A delete whose answer never came is sent again (to any server) a few times: deletes are idempotent. */
async function withRetries(workload: Workload, attempt: () => Promise<boolean>): Promise<void> {
  const deadline = now() + 5000;
  while (!(await attempt())) {
    if (now() > deadline || workload.stopped()) return;
    await sleep(50);
  }
}
