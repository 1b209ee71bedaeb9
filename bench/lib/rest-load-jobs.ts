import diagnostics from 'node:diagnostics_channel';
import { TaskQueueClient } from '../../src/client/index.js';
import { KeepAliveConnection, type HttpAnswer } from './rest-client.js';

/**
 * The work the load generator process does against the REST server, one
 * job at a time. Every job is bounded twice: by a count and by seconds.
 */
export type LoadJob =
  | { readonly kind: 'noop'; readonly connections: number; readonly requests: number; readonly seconds: number }
  | {
      readonly kind: 'insert';
      readonly connections: number;
      readonly tasks: number;
      readonly perRequest: number;
      readonly seconds: number;
    }
  | {
      readonly kind: 'cycle';
      readonly consumers: number;
      readonly numTasks: number;
      readonly tasks: number;
      /** each: one DELETE per task; batch: one batch request of DELETEs per lease; batchDelete: one tasks:batchDelete per lease. */
      readonly deletes: 'each' | 'batch' | 'batchDelete';
      /** The batch endpoint to use (the bench server also serves one that routes every part). */
      readonly batchPath?: string;
      readonly gzip: boolean;
      /** Sent with every lease (long-poll, as the REST worker runner's leases are); default none. */
      readonly waitSecs?: number;
      readonly seconds: number;
    }
  | {
      /** The REST worker runner (taskqueue/client's `queue.work`), no-op handler: leases of `batchSize`, fenced tasks:batchDelete. */
      readonly kind: 'runner';
      readonly concurrency: number;
      readonly batchSize: number;
      readonly tasks: number;
      readonly seconds: number;
    };

export interface LoadTarget {
  /** `http://127.0.0.1:port` */
  readonly url: string;
  /** `/taskqueue/v1beta2/projects/{project}/taskqueues/{queue}/tasks` */
  readonly tasksPath: string;
}

export interface LoadResult {
  readonly tasks: number;
  readonly seconds: number;
  /** Latency of every request of the job, in ms (so that results of parts of a job can be merged). */
  readonly latencies: number[];
  /** Lease requests only (cycle jobs). */
  readonly leaseLatencies: number[];
  /** CPU time of the load generator during the job (user + system), in µs. */
  readonly cpuMicros: number;
  readonly errors: number;
  readonly firstError?: string;
}

const PAYLOAD_B64 = Buffer.alloc(64, 'x').toString('base64');
const BOUNDARY = 'bench_boundary_7f3a';
const GZIP_HEADERS = 'Accept-Encoding: gzip\r\nUser-Agent: taskqueue-bench (gzip)\r\n';

class Recorder {
  readonly all: number[] = [];
  readonly leases: number[] = [];
  errors = 0;
  firstError: string | undefined;

  async time(leaseCall: boolean, call: () => Promise<HttpAnswer>): Promise<HttpAnswer> {
    const t0 = performance.now();
    const answer = await call();
    const ms = performance.now() - t0;
    this.all.push(ms);
    if (leaseCall) this.leases.push(ms);
    if (answer.status !== 200) {
      this.errors++;
      this.firstError ??= `${answer.status} ${answer.body.toString().slice(0, 200)}`;
    }
    return answer;
  }

  readonly #cpu = process.cpuUsage();

  result(tasks: number, seconds: number): LoadResult {
    const cpu = process.cpuUsage(this.#cpu);
    return {
      tasks,
      seconds,
      latencies: this.all.map((ms) => Math.round(ms * 1000) / 1000),
      leaseLatencies: this.leases.map((ms) => Math.round(ms * 1000) / 1000),
      cpuMicros: cpu.user + cpu.system,
      errors: this.errors,
      ...(this.firstError ? { firstError: this.firstError } : {}),
    };
  }
}

async function withConnections<T>(
  url: string,
  n: number,
  work: (connection: KeepAliveConnection) => Promise<T>,
): Promise<T[]> {
  const connections = await Promise.all(Array.from({ length: n }, () => KeepAliveConnection.open(url)));
  try {
    return await Promise.all(connections.map(work));
  } finally {
    for (const connection of connections) connection.close();
  }
}

/** A batch body of `calls` (each `METHOD path`, with an optional JSON body). */
export function batchBody(calls: ReadonlyArray<{ line: string; json?: string }>): string {
  let text = '';
  for (const call of calls) {
    text += `--${BOUNDARY}\r\nContent-Type: application/http\r\n\r\n${call.line} HTTP/1.1\r\n`;
    if (call.json !== undefined)
      text += `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(call.json)}\r\n\r\n${call.json}`;
    else text += '\r\n';
    text += '\r\n';
  }
  return `${text}--${BOUNDARY}--\r\n`;
}

const BATCH_HEADERS = `Content-Type: multipart/mixed; boundary=${BOUNDARY}\r\n`;

export async function runJob(target: LoadTarget, job: LoadJob): Promise<LoadResult> {
  const recorder = new Recorder();
  const deadline = performance.now() + job.seconds * 1000;
  const started = performance.now();
  let done = 0;

  if (job.kind === 'noop') {
    let sent = 0;
    await withConnections(target.url, job.connections, async (connection) => {
      while (sent < job.requests && performance.now() < deadline) {
        sent++;
        await recorder.time(false, () => connection.request('GET', '/bench/noop'));
        done++;
      }
    });
    return recorder.result(0, (performance.now() - started) / 1000);
  }

  if (job.kind === 'insert') {
    const one = JSON.stringify({ payloadBase64: PAYLOAD_B64 });
    const batch = batchBody(
      Array.from({ length: job.perRequest }, () => ({ line: `POST ${target.tasksPath}`, json: one })),
    );
    let claimed = 0;
    await withConnections(target.url, job.connections, async (connection) => {
      while (claimed < job.tasks && performance.now() < deadline) {
        claimed += job.perRequest;
        const answer = await recorder.time(false, () =>
          job.perRequest === 1
            ? connection.request('POST', target.tasksPath, 'Content-Type: application/json\r\n', one)
            : connection.request('POST', '/batch/taskqueue/v1beta2', BATCH_HEADERS, batch),
        );
        if (job.perRequest > 1) {
          const ok = countParts(answer.body, 'HTTP/1.1 200');
          if (ok !== job.perRequest) recorder.errors += job.perRequest - ok;
          done += ok;
        } else if (answer.status === 200) {
          done++;
        }
      }
    });
    return recorder.result(done, (performance.now() - started) / 1000);
  }

  if (job.kind === 'runner') {
    const [, project, queue] = /\/projects\/([^/]+)\/taskqueues\/([^/]+)\/tasks$/.exec(target.tasksPath) ?? [];
    // Every request the runner makes is timed, leases apart, as the hand-written jobs' are: through
    // undici's diagnostics channels, so the runner's own HTTP path (not a fetch given to it) is measured.
    const untime = timeUndiciRequests((ms, lease) => {
      recorder.all.push(ms);
      if (lease) recorder.leases.push(ms);
    });
    const client = new TaskQueueClient({ baseUrl: target.url, project: project! });
    const worker = client.queue(queue!).work(() => {}, {
      concurrency: job.concurrency,
      batchSize: job.batchSize,
      leaseSeconds: 300,
      pollIntervalMs: 1000,
    });
    worker.on('error', (error) => {
      recorder.errors++;
      recorder.firstError ??= String(error);
    });
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, job.seconds * 1000);
      worker.on('processed', () => {
        if (++done < job.tasks) return;
        clearTimeout(timer);
        resolve();
      });
    });
    const seconds = (performance.now() - started) / 1000;
    await worker.stop();
    untime();
    return recorder.result(done, seconds);
  }

  const extra = job.gzip ? GZIP_HEADERS : '';
  const wait = job.waitSecs === undefined ? '' : `&waitSecs=${job.waitSecs}`;
  const batchPath = job.batchPath ?? '/batch/taskqueue/v1beta2';
  let claimed = 0;
  await withConnections(target.url, job.consumers, async (connection) => {
    while (claimed < job.tasks && performance.now() < deadline) {
      const want = Math.min(job.numTasks, job.tasks - claimed);
      claimed += want;
      const leased = await recorder.time(true, () =>
        connection.request('POST', `${target.tasksPath}/lease?numTasks=${want}&leaseSecs=300${wait}`, extra),
      );
      const ids =
        leased.status === 200
          ? (JSON.parse(leased.body.toString()) as { items: Array<{ id: string }> }).items.map((t) => t.id)
          : [];
      claimed -= want - ids.length;
      if (ids.length === 0) {
        // Empty queue: stop once no other consumer still holds tasks.
        if (claimed <= done) return;
        await new Promise((resolve) => setTimeout(resolve, 1));
        continue;
      }
      if (job.deletes === 'each') {
        for (const id of ids) {
          const answer = await recorder.time(false, () =>
            connection.request('DELETE', `${target.tasksPath}/${id}`, extra),
          );
          if (answer.status === 200) done++;
        }
      } else if (job.deletes === 'batch') {
        const body = batchBody(ids.map((id) => ({ line: `DELETE ${target.tasksPath}/${id}` })));
        const answer = await recorder.time(false, () =>
          connection.request('POST', batchPath, BATCH_HEADERS + extra, body),
        );
        const ok = countParts(answer.body, 'HTTP/1.1 200');
        if (ok !== ids.length) {
          recorder.errors += ids.length - ok;
          recorder.firstError ??= answer.body.toString().slice(0, 300);
        }
        done += ok;
      } else {
        const answer = await recorder.time(false, () =>
          connection.request(
            'POST',
            `${target.tasksPath}:batchDelete`,
            `Content-Type: application/json\r\n${extra}`,
            JSON.stringify({ ids }),
          ),
        );
        const deleted =
          answer.status === 200 ? (JSON.parse(answer.body.toString()) as { deleted: string[] }).deleted.length : 0;
        if (deleted !== ids.length) recorder.errors += ids.length - deleted;
        done += deleted;
      }
    }
  });
  return recorder.result(done, (performance.now() - started) / 1000);
}

/** Calls `record` with the time to the answer's head of every undici request, until the returned function is called. */
function timeUndiciRequests(record: (ms: number, lease: boolean) => void): () => void {
  const started = new WeakMap<object, number>();
  const create = (message: unknown) => started.set((message as { request: object }).request, performance.now());
  const headers = (message: unknown) => {
    const request = (message as { request: { path: string } }).request;
    const t0 = started.get(request);
    if (t0 !== undefined) record(performance.now() - t0, request.path.includes('/tasks/lease?'));
  };
  diagnostics.subscribe('undici:request:create', create);
  diagnostics.subscribe('undici:request:headers', headers);
  return () => {
    diagnostics.unsubscribe('undici:request:create', create);
    diagnostics.unsubscribe('undici:request:headers', headers);
  };
}

/** How many parts of a batch answer start with `statusLine`. */
function countParts(body: Buffer, statusLine: string): number {
  const needle = Buffer.from(`\r\n\r\n${statusLine}`);
  let count = 0;
  for (let at = body.indexOf(needle); at >= 0; at = body.indexOf(needle, at + needle.length)) count++;
  return count;
}
