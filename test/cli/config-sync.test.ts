import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { droppedAfterAll, testPgUrl } from '../helpers/engines.js';
import { cli, jsonLines } from './cli-harness.js';

const freshSchema = droppedAfterAll();

/** An operator command that has the configuration writes its queues as a server does; one that has none says how. */
describe('operator commands on a fresh database', () => {
  let dir: string;
  let file: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'taskqueue-cli-config-'));
    file = join(dir, 'queue.yaml');
    writeFileSync(file, 'queue:\n- name: q\n  mode: pull\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('migrate, then add with the configuration, works before any server ran', async () => {
    const env = { DATABASE_URL: testPgUrl(), TASKQUEUE_SCHEMA: freshSchema(), TASKQUEUE_CONFIG: file };
    expect((await cli(['migrate'], env)).code).toBe(0);
    const added = await cli(['add', 'q', 'hello', '--name', 'first'], env);
    expect(added).toMatchObject({ code: 0 });
    expect(jsonLines((await cli(['queues', '--json'], env)).out).find((row) => row.name === 'q')).toMatchObject({ availableTasks: 1 });
  });

  it('--config does the same; without a configuration the error says how', async () => {
    const schema = freshSchema();
    const env = { DATABASE_URL: testPgUrl(), TASKQUEUE_SCHEMA: schema };
    expect((await cli(['migrate'], env)).code).toBe(0);
    const unknown = await cli(['add', 'q', 'hello'], env);
    expect(unknown.code).toBe(3);
    expect(unknown.err).toContain('TASKQUEUE_CONFIG');
    expect((await cli(['add', 'q', 'hello', '--config', file], env)).code).toBe(0);
    // The queues are in the database now: later commands need no configuration.
    expect((await cli(['add', 'q', 'again'], env)).code).toBe(0);
  });
});
