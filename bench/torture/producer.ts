import { batchAnswers, batchRequest } from './multipart-batch.js';
import { payloadOf } from './payloads.js';
import { sleep } from './sleep.js';
import { anomaly, LIMITED_QUEUE, MAIN_QUEUE, MAX_PAYLOAD, queuePath, randomInt, type Workload } from './workload.js';

/**
 * A producer: adds tasks with names of its own (`p{id}-{n}`, never reused,
 * never retried, so an answer that never came leaves the add "unknown"
 * rather than acknowledged), one per request or 2-50 in one multipart
 * batch; a tenth of them to the queue with a storage limit. When the run
 * caps the backlog, it waits while the main queue holds more than the cap.
 */
export async function runProducer(workload: Workload, id: number): Promise<void> {
  let sequence = 0;
  while (!workload.stopped()) {
    if (workload.backlogFull()) {
      await sleep(100);
      continue;
    }
    await workload.pace();
    const queue = Math.random() < 0.1 ? LIMITED_QUEUE : MAIN_QUEUE;
    const nextName = () => `${queue === LIMITED_QUEUE ? 'l' : 'p'}${id}-${workload.run}-${sequence++}`;
    const path = `${queuePath(queue)}/tasks`;
    if (Math.random() < 0.5) {
      const name = nextName();
      workload.ledger.unknownAdds.add(name);
      const exchange = await workload.caller.call('POST', path, {
        body: insertBody(name),
        headers: { 'content-type': 'application/json' },
      });
      if (exchange.status !== 0) workload.countOps(1);
      recordAdd(workload, queue, name, exchange.status, exchange.body.toString('utf8'), exchange.end);
      if (exchange.status === 0 || exchange.status === 503) await sleep(20);
    } else {
      const names = Array.from({ length: randomInt(2, 50) }, nextName);
      for (const name of names) workload.ledger.unknownAdds.add(name);
      const batch = batchRequest(
        names.map((name) => ({
          method: 'POST',
          path,
          headers: { 'Content-Type': 'application/json' },
          body: insertBody(name),
        })),
      );
      const exchange = await workload.caller.call('POST', '/batch/taskqueue/v1beta2', {
        body: batch.body,
        headers: { 'content-type': batch.contentType },
      });
      if (exchange.status !== 200) {
        if (exchange.status !== 0 && exchange.status !== 503)
          anomaly(workload, 'batch insert answered ' + exchange.status, exchange.body.toString());
        await sleep(20);
        continue;
      }
      const answers = batchAnswers(exchange.headers?.get('content-type') ?? null, exchange.body);
      workload.countOps(answers.length);
      if (answers.length !== names.length)
        anomaly(workload, 'batch insert: wrong number of answers', `${answers.length} for ${names.length}`);
      answers.forEach((answer, i) => recordAdd(workload, queue, names[i]!, answer.status, answer.body, exchange.end));
    }
  }
}

function insertBody(name: string): string {
  return JSON.stringify({ id: name, payloadBase64: payloadOf(name, MAX_PAYLOAD).toString('base64') });
}

function recordAdd(workload: Workload, queue: string, name: string, status: number, body: string, at: number): void {
  if (status === 200) {
    let id: unknown;
    try {
      id = (JSON.parse(body) as { id?: unknown }).id;
    } catch {
      id = undefined;
    }
    if (id !== name) {
      anomaly(workload, 'insert answered 200 for another task', `${name}: ${body}`);
      return;
    }
    workload.ledger.unknownAdds.delete(name);
    workload.ledger.acknowledgedAdds.set(name, { queue, at });
  } else if (status === 507 && queue === LIMITED_QUEUE) {
    workload.ledger.unknownAdds.delete(name);
    workload.ledger.refusedAdds.add(name);
    workload.ledger.addsRefusedForStorage += 1;
  } else if (status !== 0 && status !== 503) {
    anomaly(workload, `insert answered ${status}`, `${queue}/${name}: ${body}`);
  }
}
