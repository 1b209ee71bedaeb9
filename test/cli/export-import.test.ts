import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Environment } from '../../src/config/service-settings.js';
import { settingsFromEnvironment } from '../../src/config/service-settings.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { freshSchema, testPgUrl } from '../helpers/engines.js';
import { cli, jsonLines, pgAdmin } from './cli-harness.js';
import { TEST_OPERATOR } from '../helpers/operator-of.js';

/**
 * export -> import -> export gives the same bytes, on the database and over
 * HTTP, across page boundaries, with binary payloads, tags, delayed and
 * leased tasks; progress only on a terminal; a bad line stops the import
 * and says where.
 */

const QUEUE_YAML = ['work', 'copy-a', 'copy-b', 'copy-c']
  .map((name) => `- name: ${name}\n  mode: pull\n  lease_rate: unlimited\n`)
  .join('');

describe('export and import', () => {
  let dir: string;
  let server: RunningServer;
  let db: Environment;
  let url: Environment;
  const schema = freshSchema();
  const admin = pgAdmin();
  const sql = admin.sql;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'taskqueue-export-'));
    writeFileSync(join(dir, 'queue.yaml'), `queue:\n${QUEUE_YAML}`);
    const serverEnv = {
      DATABASE_URL: testPgUrl(),
      TASKQUEUE_SCHEMA: schema,
      TASKQUEUE_CONFIG: join(dir, 'queue.yaml'),
      TASKQUEUE_ADMINS: 'admin@example.com',
      PORT: '0',
      HOST: '127.0.0.1',
    };
    server = await startServer({ settings: settingsFromEnvironment(serverEnv), env: serverEnv, log: () => {} });
    db = { DATABASE_URL: testPgUrl(), TASKQUEUE_SCHEMA: schema };
    url = {
      TASKQUEUE_URL: server.url,
      TASKQUEUE_TOKEN: (await cli(['token', '--email', 'admin@example.com'], serverEnv)).out.trim(),
    };

    // 250 tasks: more than two pages; every kind of payload, tag and state.
    const work = server.service.getQueue('work');
    for (let batch = 0; batch < 5; batch++) {
      await work.add(
        Array.from({ length: 50 }, (_, i) => {
          const n = batch * 50 + i;
          return {
            name: `task-${String(n).padStart(3, '0')}`,
            payload: n % 3 === 0 ? randomBytes(n * 7) : n % 3 === 1 ? `ünïcødé ${n} "quoted"\n` : '',
            tag: n % 2 === 0 ? `tag-${n % 4}` : null,
            ...(n % 10 === 0 ? { countdownSeconds: 3600 + n } : {}),
          };
        }),
      );
    }
    await work.leaseTasks({ lease: 300, maxTasks: 20 });
  });
  afterAll(async () => {
    await sql(`drop schema if exists ${schema} cascade`).catch(() => {});
    await server.close();
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    for (const queue of ['copy-a', 'copy-b', 'copy-c']) await server.service.operate(queue, TEST_OPERATOR).purge();
    await sql(`delete from ${schema}.task_tombstones`);
  });

  it('round-trips byte for byte: database export, HTTP import, HTTP export, database import, database export', async () => {
    const file = join(dir, `work-${Date.now()}.jsonl`);
    const exported = await cli(['export', 'work', '--file', file], db);
    expect(exported).toMatchObject({ code: 0, out: '', err: 'exported 250 task(s) from work\n' });
    const original = readFileSync(file);
    const lines = jsonLines(original.toString('utf8'));
    expect(lines).toHaveLength(250);
    expect(Object.keys(lines[0] ?? {})).toEqual(['name', 'etaUsec', 'tag', 'payloadBase64']);

    const imported = await cli(['import', 'copy-a', '--file', file], url);
    expect(imported).toMatchObject({ code: 0, err: 'imported 250 task(s) into copy-a\n' });
    const overHttp = await cli(['export', 'copy-a'], url);
    expect(overHttp.code).toBe(0);
    expect(overHttp.outBytes.equals(original)).toBe(true);

    expect((await cli(['import', 'copy-b'], db, { stdin: overHttp.outBytes })).code).toBe(0);
    const again = await cli(['export', 'copy-b'], db);
    expect(again.outBytes.equals(original)).toBe(true);

    // The payloads themselves, byte for byte.
    const source = await server.service.getQueue('work').listTasks({ limit: 1000 });
    const copy = await server.service.getQueue('copy-b').listTasks({ limit: 1000 });
    expect(copy.map((task) => [task.name, task.tag, task.etaUsec, task.payload.toString('hex')])).toEqual(
      source.map((task) => [task.name, task.tag, task.etaUsec, task.payload.toString('hex')]),
    );
  });

  it('imports tasks under the names the service generated for them, over HTTP and into the database', async () => {
    const source = server.service.getQueue('copy-c');
    await source.add([{ payload: 'one' }, { payload: 'two', tag: 't' }, { payload: 'three', countdownSeconds: 600 }]);
    const exported = await cli(['export', 'copy-c'], db);
    expect(exported.code).toBe(0);
    // A plain add refuses these names (held by their form); an import restores them.
    const names = jsonLines(exported.out).map((line) => (line as { name: string }).name);
    expect(names.every((name) => /^[A-Za-z0-9_-]{24}$/.test(name))).toBe(true);
    await expect(server.service.getQueue('copy-a').add({ name: names[0]! })).rejects.toMatchObject({
      code: 'TOMBSTONED_TASK',
    });
    expect(await cli(['import', 'copy-a'], url, { stdin: exported.outBytes })).toMatchObject({
      code: 0,
      err: 'imported 3 task(s) into copy-a\n',
    });
    expect(await cli(['import', 'copy-b'], db, { stdin: exported.outBytes })).toMatchObject({
      code: 0,
      err: 'imported 3 task(s) into copy-b\n',
    });
    for (const copy of ['copy-a', 'copy-b']) {
      expect((await cli(['export', copy], db)).outBytes.equals(exported.outBytes)).toBe(true);
    }
  });

  it('draws a progress bar on stderr only when it is a terminal', async () => {
    const quiet = await cli(['export', 'work'], db);
    expect(quiet.err).toBe('exported 250 task(s) from work\n');
    const shown = await cli(['export', 'work'], db, { ttyErr: true });
    expect(shown.err).toContain('\r');
    expect(shown.err).toMatch(/exporting work \[#*\.*\]\s+\d+% \d+ task\(s\)/);
    expect(shown.outBytes.equals(quiet.outBytes)).toBe(true);
    const file = join(dir, `progress-${Date.now()}.jsonl`);
    writeFileSync(file, quiet.outBytes);
    const importing = await cli(['import', 'copy-c', '--file', file], url, { ttyErr: true });
    expect(importing.code).toBe(0);
    expect(importing.err).toMatch(/importing into copy-c \[/);
  });

  it('a bad line stops the import, names the line, and says how many went in before it', async () => {
    const good = (await cli(['export', 'work'], db)).out.split('\n').slice(0, 150);
    const input = [...good, '{"name":"broken","etaUsec":"soon","tag":null,"payloadBase64":""}', ''].join('\n');
    const run = await cli(['import', 'copy-a'], db, { stdin: input });
    expect(run.code).toBe(1);
    expect(run.err).toContain('line 151: etaUsec');
    expect(run.err).toContain('100 task(s) were imported before it');
    expect((await server.service.getQueue('copy-a').listTasks({ limit: 1000 })).length).toBe(100);

    const notJson = await cli(['import', 'copy-b'], url, { stdin: 'not json\n' });
    expect(notJson.code).toBe(1);
    expect(notJson.err).toContain('line 1 is not JSON');
  });

  it('a name already in the queue fails its batch; an unknown queue is exit 3; export never overwrites a file', async () => {
    const some = (await cli(['export', 'work'], db)).out.split('\n').slice(0, 3).join('\n');
    expect((await cli(['import', 'copy-a'], url, { stdin: some })).code).toBe(0);
    const twice = await cli(['import', 'copy-a'], url, { stdin: some });
    expect(twice.code).toBe(1);
    expect(twice.err).toContain('0 task(s) were imported before them');
    // Purged names stay held (tombstones): importing them again fails (1), it is not a missing queue (3).
    await server.service.operate('copy-a', TEST_OPERATOR).purge();
    const held = await cli(['import', 'copy-a'], db, { stdin: some });
    expect(held.code).toBe(1);
    expect((await cli(['import', 'nope'], db, { stdin: some })).code).toBe(3);
    const file = join(dir, 'exists.jsonl');
    writeFileSync(file, 'precious');
    expect((await cli(['export', 'work', '--file', file], db)).code).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe('precious');
  });
});
