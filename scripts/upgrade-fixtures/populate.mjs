// Fills a fresh schema with real data through the public in-process API of
// an OLD revision of taskqueue (its built dist/index.js), for the upgrade
// fixtures of test/fixtures/upgrades/. Run by make-upgrade-fixture.sh:
//
//   node populate.mjs REVISION_DIR DATABASE_URL SCHEMA OUT_QUEUE_XML
//
// What the revision can do is read from its own migrations: sql/0010 (audit
// log, 0.2.0) and sql/0018 (push queues, cron, queue definitions and the SQL
// API, main). Only its public API is used, except the SQL API calls, which
// are that API (functions in the schema). Time passes for real where the
// data needs it (a lease left to lapse), never by editing rows.
import { Buffer } from 'node:buffer';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import pg from 'pg';

const [revisionArg, databaseUrl, schema, outQueueXml] = process.argv.slice(2);
if (!revisionArg || !databaseUrl || !schema || !outQueueXml) {
  throw new Error('usage: node populate.mjs REVISION_DIR DATABASE_URL SCHEMA OUT_QUEUE_XML');
}
const revisionDir = resolve(revisionArg);
const hasAudit = existsSync(join(revisionDir, 'sql/0010_audit_log.sql'));
// Push and cron came with cron's table: 0018_cron_jobs before the unreleased
// migrations were squashed, 0017_cron_jobs_state after.
const hasPushAndCron = ['sql/0018_cron_jobs.sql', 'sql/0017_cron_jobs_state.sql'].some((file) =>
  existsSync(join(revisionDir, file)),
);
const DAY = 24 * 3600;
const OPERATOR = { actor: 'fixture@example.com', source: 'fixture' };

const pushQueue = hasPushAndCron
  ? `
  <queue>
    <name>hooks</name>
    <rate>1/s</rate>
    <bucket-size>2</bucket-size>
    <target-url>http://127.0.0.1:9</target-url>
    <retry-parameters><task-retry-limit>3</task-retry-limit></retry-parameters>
  </queue>`
  : '';
const queueXml = `<?xml version="1.0" encoding="UTF-8"?>
<queue-entries>
  <queue>
    <name>orders</name>
    <mode>pull</mode>
    <retry-parameters><task-retry-limit>5</task-retry-limit></retry-parameters>
    <lease-rate>unlimited</lease-rate>
  </queue>
  <queue>
    <name>fragile</name>
    <mode>pull</mode>
    <retry-parameters><task-retry-limit>1</task-retry-limit></retry-parameters>
    <lease-rate>unlimited</lease-rate>
  </queue>
  <queue>
    <name>paused</name>
    <mode>pull</mode>
    <lease-rate>unlimited</lease-rate>
  </queue>${pushQueue}
</queue-entries>
`;
const cronYaml = `cron:
- name: nightly-report
  description: nightly report
  url: /reports/nightly
  schedule: every 24 hours
  queue: hooks
`;

const work = await mkdtemp(join(tmpdir(), 'tq-fixture-'));
await writeFile(join(work, 'queue.xml'), queueXml);
await writeFile(resolve(outQueueXml), queueXml);
await writeFile(join(work, 'cron.yaml'), cronYaml);
// Relative paths: the configuration's source is stored as given (queue_definitions.source).
process.chdir(work);

// A fresh schema: a previous run's, and the roles the SQL API made for it, go first.
const admin = new pg.Client({ connectionString: databaseUrl });
await admin.connect();
await admin.query(`drop schema if exists ${pg.escapeIdentifier(schema)} cascade`);
await admin.query(
  `drop role if exists ${pg.escapeIdentifier(`${schema}_producer`)}, ${pg.escapeIdentifier(`${schema}_consumer`)}`,
);

const { openTaskQueue } = await import(pathToFileURL(join(revisionDir, 'dist/index.js')).href);
const tq = await openTaskQueue({
  databaseUrl,
  schema,
  config: 'queue.xml',
  cleanupIntervalMs: 0,
  env: {},
  ...(hasPushAndCron ? { ownQueues: true, dispatch: false, cron: 'cron.yaml' } : {}),
});
const audited = (queue) => (hasAudit ? tq.operate(queue, OPERATOR) : tq.getQueue(queue));

// orders: named tasks with tags, bytes, unnamed ones, delayed, leased, retried, deleted.
const orders = tq.getQueue('orders');
for (let i = 1; i <= 6; i++) {
  await orders.add({ name: `order-${i}`, payload: JSON.stringify({ order: i }), tag: i % 2 ? 'eu' : 'us' });
}
await orders.add({ name: 'binary-1', payload: Buffer.from(Array.from({ length: 256 }, (_, i) => i)), tag: 'bin' });
await orders.add(Array.from({ length: 12 }, (_, i) => ({ payload: `unnamed-${i}`, tag: 'bulk' })));
await orders.add({ name: 'later-1', payload: 'later', tag: 'eu', countdownSeconds: 5 * DAY });
await orders.add({ name: 'later-2', payload: 'later', eta: new Date(Date.now() + 6 * DAY * 1000) });
await orders.add({ name: 'held-1', payload: 'held', tag: 'held' });
await orders.leaseTasksByTag({ tag: 'held', lease: 6, unit: 'days', maxTasks: 10 });
await orders.add({ name: 'retried-1', payload: 'retried', tag: 'retry' });
await orders.add({ name: 'done-1', payload: 'gone' });
await orders.add({ name: 'done-2', payload: 'gone' });
await orders.deleteTask('done-1');
if (hasAudit) await tq.operate('orders', OPERATOR).deleteTasks(['done-2']);
else await orders.deleteTask('done-2');
// An unnamed task leased and deleted by its consumer.
await orders.add({ payload: 'consumed', tag: 'consume' });
for (const task of await orders.leaseTasksByTag({ tag: 'consume', lease: 60, maxTasks: 10 })) {
  await orders.deleteTask(task);
}

// fragile (retry limit 1): two tasks leased once, left to lapse, then dead-lettered by the next lease.
const fragile = tq.getQueue('fragile');
await fragile.add([
  { name: 'doomed-1', payload: 'doomed', tag: 'doom' },
  { name: 'doomed-2', payload: 'doomed too' },
]);
await fragile.leaseTasks({ lease: 1, maxTasks: 10 });
await orders.leaseTasksByTag({ tag: 'retry', lease: 1, maxTasks: 10 });
await sleep(1500);
const afterLapse = await fragile.leaseTasks({ lease: 60, maxTasks: 10 });
if (afterLapse.length !== 0) throw new Error(`the retry limit returned ${afterLapse.length} task(s)`);
await fragile.add({ name: 'fragile-ok', payload: 'fine' });

// paused: two tasks, then paused (audited from 0.2.0).
const paused = tq.getQueue('paused');
await paused.add([
  { name: 'p-1', payload: 'p1' },
  { name: 'p-2', payload: 'p2', tag: 'pp' },
]);
await audited('paused').pause();

if (hasPushAndCron) {
  const hooks = tq.getQueue('hooks');
  await hooks.add({ name: 'hook-1', method: 'POST', url: '/hook/1', headers: { 'X-Fixture': '1' }, payload: 'h1' });
  await hooks.add({ name: 'hook-2', method: 'GET', url: '/hook/2', countdownSeconds: 3 * DAY });
  await hooks.add({ method: 'PUT', url: '/hook/unnamed', payload: 'put' });
  // The scheduler records the job at start; fire it once now (a push task in hooks, audited).
  for (let attempt = 0; ; attempt++) {
    try {
      await tq.runCronJob('nightly-report', OPERATOR);
      break;
    } catch (error) {
      if (attempt >= 50) throw error;
      await sleep(100);
    }
  }
  // The SQL API, as an application sharing the database calls it.
  const s = pg.escapeIdentifier(schema);
  await admin.query(`select ${s}.add_task('orders', convert_to('from sql', 'UTF8'), 'sql-1', 'sql')`);
  await admin.query(`select ${s}.add_tasks('orders', array['\\x01'::bytea, '\\x02'::bytea], array['sql-2', 'sql-3'])`);
  await admin.query(`select * from ${s}.lease_tasks('orders', 1, ${6 * DAY}, 'sql')`);
  await admin.query(`select ${s}.delete_task('orders', 'sql-3')`);
}

await tq.close();
await admin.end();
process.stdout.write(`populated ${schema} (audit: ${hasAudit}, push and cron: ${hasPushAndCron})\n`);
