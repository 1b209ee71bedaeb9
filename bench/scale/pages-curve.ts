import { Hono } from 'hono';
import { mountConsole } from '../../src/console/mount-console.js';
import { openBenchService } from '../lib/service-bench.js';
import { inRounds, relationSizes, seqScans, timeCalls, timeOnce, type Latency, settle } from './measure.js';

/** The CLI's page of dead letters (src/cli/database-client.ts). */
const CLI_PAGE = 500;

export interface PagesPoint {
  /** Dead letters in one queue, and audit entries. */
  readonly rows: number;
  readonly fillSeconds: number;
  readonly deadLetterBytes: number;
  readonly auditBytes: number;
  /** Console: the queue list (its overview counts dead letters), a queue's page (its first 100 dead letters), the audit log's first and a middle page. */
  readonly consoleQueues: Latency;
  readonly consoleQueue: Latency;
  readonly consoleAudit: Latency;
  readonly consoleAuditMiddle: Latency;
  /** CLI: `taskqueue queues` (the overview), `dead-letters` first page and a page from the middle, and the whole listing. */
  readonly cliQueues: Latency;
  readonly cliDeadLettersFirst: Latency;
  readonly cliDeadLettersMiddle: Latency;
  readonly cliDeadLettersAllSeconds: number;
  readonly seqScans: Record<string, number>;
}

/**
 * A fresh schema with `rows` dead letters (died over the last 6 days, inside
 * their 7-day retention) and `rows` audit entries, each one INSERT ...
 * SELECT (neither table has triggers or counters), then analyzed. Each page
 * is timed as its reader sees it: console pages through the console's Hono
 * app (rendered HTML), CLI pages through the service calls the CLI makes.
 */
export async function pagesPoint(url: string, rows: number): Promise<PagesPoint> {
  const bench = await openBenchService(url, 10);
  const s = bench.schema;
  try {
    const [queue] = (await bench.admin.query<{ id: number }>(`select id from ${s}.queues where name = 'bench'`)).rows;
    const fillMs = await timeOnce(async () => {
      await bench.admin.query(
        `insert into ${s}.task_dead_letters (queue_id, name, tag, payload, retry_count, enqueued_at, died_at)
         select $1, 'dead-' || g, null, $3, 5, now() - interval '7 days', now() - interval '6 days' * (g::float8 / $2)
           from generate_series(1, $2) g`,
        [queue!.id, rows, Buffer.alloc(64, 'x')],
      );
      await bench.admin.query(
        `insert into ${s}.audit_log (at, actor, action, queue, target, count, source)
         select now() - g * interval '1 second', 'ops@example.com', case when g % 2 = 0 then 'pause' else 'resume' end, 'bench', null, 0, 'console'
           from generate_series(1, $1) g`,
        [rows],
      );
      await bench.admin.query(`vacuum (analyze) ${s}.task_dead_letters, ${s}.audit_log`);
    });
    await settle(bench.admin);
    const deadLetterBytes = (await relationSizes(bench.admin, s, 'task_dead_letters')).totalBytes;
    const auditBytes = (await relationSizes(bench.admin, s, 'audit_log')).totalBytes;

    const app = new Hono();
    const mounted = mountConsole(app, { service: bench.service, auditLog: bench.service.auditLog });
    const page = (path: string) => async () => {
      const response = await app.request(path);
      if (response.status !== 200) throw new Error(`${path}: HTTP ${response.status}`);
      await response.text();
    };
    const middleAudit = Math.floor(rows / 2);
    const [middle] = (
      await bench.admin.query<{ name: string; died_usec: string }>(
        `select name, (extract(epoch from died_at) * 1000000)::int8 as died_usec
           from ${s}.task_dead_letters where queue_id = $1 order by died_at, name offset $2 limit 1`,
        [queue!.id, Math.floor(rows / 2)],
      )
    ).rows;
    const after = { name: middle!.name, diedUsec: Number(middle!.died_usec) };
    let consoleQueues: Latency;
    let consoleQueue: Latency;
    let consoleAudit: Latency;
    let consoleAuditMiddle: Latency;
    try {
      await page('/console')();
      consoleQueues = await inRounds(() => timeCalls(10, page('/console')));
      consoleQueue = await inRounds(() => timeCalls(10, page('/console/queues/bench')));
      consoleAudit = await inRounds(() => timeCalls(10, page('/console/audit')));
      consoleAuditMiddle = await inRounds(() => timeCalls(10, page(`/console/audit?before=${middleAudit}`)));
    } finally {
      await mounted.close();
    }
    const cliQueues = await inRounds(() => timeCalls(10, () => bench.service.overview()));
    // The CLI reads dead letters through the operator API, as here.
    const operations = bench.service.operate('bench', { actor: 'bench', source: 'bench' });
    const cliDeadLettersFirst = await inRounds(() =>
      timeCalls(10, () => operations.listDeadLetters({ limit: CLI_PAGE })),
    );
    const cliDeadLettersMiddle = await inRounds(() =>
      timeCalls(10, () => operations.listDeadLetters({ limit: CLI_PAGE, after })),
    );
    const cliDeadLettersAllSeconds =
      (await timeOnce(async () => {
        let cursor: { name: string; diedUsec: number } | undefined;
        for (;;) {
          const batch = await operations.listDeadLetters({ limit: CLI_PAGE, ...(cursor ? { after: cursor } : {}) });
          const last = batch.at(-1);
          if (batch.length < CLI_PAGE || !last) break;
          cursor = { name: last.name, diedUsec: last.diedUsec };
        }
      })) / 1000;
    await bench.service.close();
    return {
      rows,
      fillSeconds: fillMs / 1000,
      deadLetterBytes,
      auditBytes,
      consoleQueues,
      consoleQueue,
      consoleAudit,
      consoleAuditMiddle,
      cliQueues,
      cliDeadLettersFirst,
      cliDeadLettersMiddle,
      cliDeadLettersAllSeconds,
      seqScans: await seqScans(bench.admin, s, ['task_dead_letters', 'audit_log']),
    };
  } finally {
    await bench.close();
  }
}
