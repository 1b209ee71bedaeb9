import { OPEN_ACCESS } from '../../src/auth/access-control.js';
import { encodeEnvelope, decodeAnswer } from '../../src/appengine/envelope.js';
import { decodeMessage, encodeMessage, messageType } from '../../src/appengine/protocol.js';
import { createRpcHandler } from '../../src/appengine/rpc-handler.js';
import { createApp } from '../../src/http/create-app.js';
import { listen } from '../../src/server/listen.js';
import { KeepAliveConnection } from './rest-client.js';
import { batchBody } from './rest-load-jobs.js';
import { openBenchService, preload } from './service-bench.js';
import { figure, formatFigure, type Figure } from './stats.js';
import { printTable } from './table.js';

/**
 * App Engine's API protocol against REST v1beta2, same process, same
 * service, same database (`npm run bench -- --only=appengine`): adds of
 * 100 tasks (a `BulkAdd` against a REST batch of 100 `tasks.insert`) and
 * leases of 100 (`QueryAndOwnTasks` against `tasks.lease`), from
 * PRODUCERS keep-alive connections each. The bar: each at least
 * 0.8x of REST.
 */
const PRODUCERS = 4;
const PER_CALL = 100;
const PAYLOAD = Buffer.alloc(64, 'x');
const BULK_ADD = messageType('BulkAddRequest');
const LEASE = messageType('QueryAndOwnTasksRequest');
const LEASE_RESPONSE = messageType('QueryAndOwnTasksResponse');
const RPC_HEADERS = 'Content-Type: application/octet-stream\r\nX-Google-RPC-Service-Deadline: 60\r\n';
const BATCH_HEADERS = 'Content-Type: multipart/mixed; boundary=bench_boundary_7f3a\r\n';

type Call = (connection: KeepAliveConnection) => Promise<number>;

/** Calls `call` from PRODUCERS connections until `total` tasks are done (or a call does none); tasks/s. */
async function drive(url: string, total: number, call: Call): Promise<number> {
  const connections = await Promise.all(Array.from({ length: PRODUCERS }, () => KeepAliveConnection.open(url)));
  let claimed = 0;
  let done = 0;
  const started = performance.now();
  try {
    await Promise.all(
      connections.map(async (connection) => {
        while (claimed < total) {
          claimed += PER_CALL;
          const n = await call(connection);
          done += n;
          if (n === 0) break;
        }
      }),
    );
  } finally {
    for (const connection of connections) connection.close();
  }
  return done / ((performance.now() - started) / 1000);
}

function bulkAdd(): Buffer {
  const eta = Date.now() * 1000 + Math.floor(Math.random() * 1000);
  const add_request = Array.from({ length: PER_CALL }, () => ({
    queue_name: Buffer.from('bench'),
    task_name: Buffer.alloc(0),
    eta_usec: eta,
    mode: 1,
    body: PAYLOAD,
  }));
  return Buffer.from(
    encodeEnvelope({ service: 'taskqueue', method: 'BulkAdd', request: encodeMessage(BULK_ADD, { add_request }) }),
  );
}

const LEASE_ENVELOPE = Buffer.from(
  encodeEnvelope({
    service: 'taskqueue',
    method: 'QueryAndOwnTasks',
    request: encodeMessage(LEASE, { queue_name: Buffer.from('bench'), lease_seconds: 300, max_tasks: PER_CALL }),
  }),
);

function leased(body: Buffer): number {
  const answer = decodeAnswer(body);
  if (answer.kind !== 'response') throw new Error(`lease failed: ${JSON.stringify(answer)}`);
  return ((decodeMessage(LEASE_RESPONSE, answer.response)['task'] as unknown[] | undefined) ?? []).length;
}

export async function appEngineSection(url: string, runs: number, quick: boolean): Promise<Record<string, unknown>> {
  const total = quick ? 5_000 : 20_000;
  const figures: Record<string, number[]> = { restAdd: [], rpcAdd: [], restLease: [], rpcLease: [] };
  for (let run = 0; run < runs; run++) {
    const bench = await openBenchService(url, 10);
    const stopping = new AbortController();
    const app = createApp({ service: bench.service, accessControl: OPEN_ACCESS, shutdown: stopping.signal });
    const rest = await listen(app.fetch, 0, '127.0.0.1');
    const rpc = await listen(createRpcHandler({ host: bench.service }), 0, '127.0.0.1');
    const tasksPath = `/taskqueue/v1beta2/projects/${bench.service.project}/taskqueues/bench/tasks`;
    const insert = JSON.stringify({ payloadBase64: PAYLOAD.toString('base64') });
    const batch = batchBody(Array.from({ length: PER_CALL }, () => ({ line: `POST ${tasksPath}`, json: insert })));
    const purge = () => bench.admin.query(`delete from ${bench.schema}.tasks`);
    try {
      // A B B A: drift of the machine's load falls on both alike.
      const restAdd = () =>
        drive(rest.url, total, async (c) => {
          const answer = await c.request('POST', '/batch/taskqueue/v1beta2', BATCH_HEADERS, batch);
          return answer.status === 200 ? PER_CALL : 0;
        });
      const rpcAdd = () =>
        drive(rpc.url, total, async (c) =>
          (await c.request('POST', '/rpc_http', RPC_HEADERS, bulkAdd())).status === 200 ? PER_CALL : 0,
        );
      const restLease = () =>
        drive(rest.url, total, async (c) => {
          const answer = await c.request('POST', `${tasksPath}/lease?numTasks=${PER_CALL}&leaseSecs=300`);
          return ((JSON.parse(answer.body.toString()) as { items?: unknown[] }).items ?? []).length;
        });
      const rpcLease = () =>
        drive(rpc.url, total, async (c) =>
          leased((await c.request('POST', '/rpc_http', RPC_HEADERS, LEASE_ENVELOPE)).body),
        );
      for (const [key, fn] of [
        ['restAdd', restAdd],
        ['rpcAdd', rpcAdd],
        ['rpcAdd', rpcAdd],
        ['restAdd', restAdd],
      ] as const) {
        figures[key]!.push(await fn());
        await purge();
      }
      for (const [key, fn] of [
        ['restLease', restLease],
        ['rpcLease', rpcLease],
        ['rpcLease', rpcLease],
        ['restLease', restLease],
      ] as const) {
        await preload(bench.queue, total);
        figures[key]!.push(await fn());
        await purge();
      }
    } finally {
      stopping.abort();
      await new Promise((done) => rest.server.close(() => done(undefined)));
      await new Promise((done) => rpc.server.close(() => done(undefined)));
      await bench.close();
    }
  }
  const f = Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, figure(v)])) as Record<string, Figure>;
  const ratio = (a: Figure, b: Figure) => `${(a.median / b.median).toFixed(2)}x`;
  printTable(
    `App Engine API (/rpc_http) vs REST v1beta2, calls of ${PER_CALL}, ${PRODUCERS} connections (tasks/s)`,
    ['', 'REST', '/rpc_http', '/rpc_http vs REST'],
    [
      [
        'add (BulkAdd vs batch of tasks.insert)',
        formatFigure(f.restAdd!),
        formatFigure(f.rpcAdd!),
        ratio(f.rpcAdd!, f.restAdd!),
      ],
      [
        'lease (QueryAndOwnTasks vs tasks.lease)',
        formatFigure(f.restLease!),
        formatFigure(f.rpcLease!),
        ratio(f.rpcLease!, f.restLease!),
      ],
    ],
  );
  return { ...f, addRatio: f.rpcAdd!.median / f.restAdd!.median, leaseRatio: f.rpcLease!.median / f.restLease!.median };
}
