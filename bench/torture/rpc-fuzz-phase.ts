import fc from 'fast-check';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeAnswer, encodeEnvelope } from '../../src/appengine/envelope.js';
import { decodeMessage, encodeMessage, messageType } from '../../src/appengine/protocol.js';
import { createRpcHandler } from '../../src/appengine/rpc-handler.js';
import { TASKQUEUE_CALLS } from '../../src/appengine/taskqueue-calls.js';
import { openTaskQueue } from '../../src/open-task-queue.js';
import { listen } from '../../src/server/listen.js';
import type { TestBed } from './test-bed.js';

/** What the /rpc_http fuzz found. */
export interface RpcFuzzReport {
  readonly requests: number;
  readonly statusCounts: Map<number, number>;
  /** The first envelope that broke a promise (shrunk), or null. */
  readonly counterexample: string | null;
  readonly seconds: number;
}

const BULK_ADD_RESPONSE = messageType('BulkAddResponse');
const METHODS = [...Object.keys(TASKQUEUE_CALLS), 'NoSuchCall', '__proto__', 'constructor'];
const QUEUES = ['pull-q', 'push-q', 'nope', '', '__proto__'];

/** One field of an add, any of its wire values, often absent. */
const addRequest = fc.record(
  {
    queue_name: fc.constantFrom(...QUEUES).map((q) => Buffer.from(q)),
    task_name: fc
      .oneof(fc.constant(''), fc.stringMatching(/^[a-z0-9_-]{1,8}$/), fc.string())
      .map((s) => Buffer.from(s)),
    eta_usec: fc.oneof(fc.constant(Date.now() * 1000), fc.integer(), fc.maxSafeInteger()),
    method: fc.integer({ min: -1, max: 7 }),
    url: fc.oneof(fc.constant('/_ah/queue/push-q'), fc.string()).map((s) => Buffer.from(s)),
    header: fc.array(
      fc.record({ key: fc.string().map((s) => Buffer.from(s)), value: fc.string().map((s) => Buffer.from(s)) }),
      {
        maxLength: 3,
      },
    ),
    body: fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
    mode: fc.integer({ min: -1, max: 2 }),
    tag: fc.string({ maxLength: 8 }).map((s) => Buffer.from(s)),
    retry_parameters: fc.record(
      { retry_limit: fc.integer({ min: -5, max: 5 }), min_backoff_sec: fc.double(), max_doublings: fc.integer() },
      { requiredKeys: [] },
    ),
    dispatch_deadline_usec: fc.integer(),
    transaction: fc.uint8Array({ maxLength: 4 }).map((b) => Buffer.from(b)),
  },
  { requiredKeys: ['queue_name'] },
);

/** An envelope: a BulkAdd of generated tasks, another call with random request bytes, or garbage. */
const envelope = fc.oneof(
  fc.array(addRequest, { maxLength: 6 }).map((adds) => ({
    kind: 'bulk' as const,
    bytes: encodeEnvelope({
      service: 'taskqueue',
      method: 'BulkAdd',
      request: encodeMessage(messageType('BulkAddRequest'), { add_request: adds }),
    }),
  })),
  fc
    .record({
      method: fc.constantFrom(...METHODS),
      request: fc.uint8Array({ maxLength: 64 }),
      service: fc.constantFrom('taskqueue', 'memcache', ''),
    })
    .map((c) => ({ kind: 'call' as const, bytes: encodeEnvelope(c) })),
  fc.uint8Array({ maxLength: 256 }).map((bytes) => ({ kind: 'garbage' as const, bytes })),
  // A valid BulkAdd, cut short or with a byte flipped.
  fc
    .tuple(
      fc.array(addRequest, { minLength: 1, maxLength: 3 }),
      fc.nat(),
      fc.integer({ min: 0, max: 255 }),
      fc.boolean(),
    )
    .map(([adds, at, value, cut]) => {
      const whole = encodeEnvelope({
        service: 'taskqueue',
        method: 'BulkAdd',
        request: encodeMessage(messageType('BulkAddRequest'), { add_request: adds }),
      });
      const i = at % whole.length;
      const bytes = cut ? whole.subarray(0, i) : Uint8Array.from(whole, (b, j) => (j === i ? value : b));
      return { kind: 'mangled' as const, bytes };
    }),
);

/**
 * Fuzzes the decoder and the calls of `POST /rpc_http` on a service of its
 * own (a schema of the bed's database, a pull queue and a push queue that
 * dispatches nothing). Promises: never a 5xx; every 200 is a Response
 * envelope; a BulkAdd adds exactly the tasks its answer says OK, nothing
 * when it answers an error.
 */
export async function runRpcFuzz(bed: TestBed, runs: number, seed: number): Promise<RpcFuzzReport> {
  const dir = mkdtempSync(join(tmpdir(), 'rpc-fuzz-'));
  const config = join(dir, 'queue.yaml');
  writeFileSync(
    config,
    'queue:\n- name: pull-q\n  mode: pull\n- name: push-q\n  rate: 1/s\n  target_url: http://127.0.0.1:9\n',
  );
  const schema = `rpc_fuzz_${process.pid}`;
  const service = await openTaskQueue({
    databaseUrl: bed.databaseUrl,
    schema,
    config,
    ownQueues: true,
    dispatch: false,
  });
  const listening = await listen(createRpcHandler({ host: service }), 0, '127.0.0.1');
  const statusCounts = new Map<number, number>();
  const started = performance.now();
  let requests = 0;
  // A byte-identical add is answered from the replay window (docs/app-engine.md): it adds nothing again.
  const sent = new Set<string>();
  const count = async () =>
    (await service.overview()).reduce((n, q) => n + q.availableTasks + q.leasedTasks + q.delayedTasks, 0);
  try {
    const result = await fc.check(
      fc.asyncProperty(envelope, async ({ kind, bytes }) => {
        const before = kind === 'garbage' ? 0 : await count();
        const key = Buffer.from(bytes).toString('base64');
        const replayed = sent.has(key);
        sent.add(key);
        const response = await fetch(`${listening.url}/rpc_http`, {
          method: 'POST',
          headers: { 'content-type': 'application/octet-stream' },
          body: bytes,
        });
        requests++;
        statusCounts.set(response.status, (statusCounts.get(response.status) ?? 0) + 1);
        const body = new Uint8Array(await response.arrayBuffer());
        if (response.status >= 500) return false;
        if (response.status !== 200) return true;
        const answer = decodeAnswer(body);
        if (kind === 'garbage') return true;
        const added = (await count()) - before;
        if (kind !== 'bulk' && kind !== 'mangled') return true;
        if (answer.kind !== 'response') return added === 0;
        const results =
          (decodeMessage(BULK_ADD_RESPONSE, answer.response)['taskResult'] as { result?: number }[] | undefined) ?? [];
        return added === (replayed ? 0 : results.filter((r) => (r.result ?? 0) === 0).length);
      }),
      { numRuns: runs, seed },
    );
    return {
      requests,
      statusCounts,
      counterexample: result.failed ? JSON.stringify(result.counterexample) : null,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await new Promise((done) => listening.server.close(() => done(undefined)));
    await service.close();
  }
}
