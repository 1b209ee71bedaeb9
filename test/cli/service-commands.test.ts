import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshSchema, testPgUrl } from '../helpers/engines.js';
import { cli, pgAdmin } from './cli-harness.js';

/** `migrate` and `check-config` end to end: what they print and their exit codes. */
describe('migrate and check-config', () => {
  let dir: string;
  const database = pgAdmin();
  const schema = freshSchema();
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'taskqueue-cli-service-'));
  });
  afterAll(async () => {
    await database.sql(`drop schema if exists ${schema} cascade`);
    await database.end();
    rmSync(dir, { recursive: true, force: true });
  });

  it('migrate applies the migrations once, then finds the schema up to date', async () => {
    const first = await cli(['migrate', '--database-url', testPgUrl(), '--schema', schema], {});
    expect(first.code).toBe(0);
    expect(first.out).toMatch(new RegExp(`^schema ${schema}: applied 1, 2, .* \\(now at version \\d+\\)\\n$`));
    const again = await cli(['migrate'], { DATABASE_URL: testPgUrl(), TASKQUEUE_SCHEMA: schema });
    expect(again.code).toBe(0);
    expect(again.out).toMatch(new RegExp(`^schema ${schema} is up to date \\(version \\d+\\)\\n$`));
  });

  it('check-config summarises a good file (0) and names the problem in a bad one (1)', async () => {
    const good = join(dir, 'queue.yaml');
    writeFileSync(good, 'queue:\n- name: jobs\n  mode: pull\n  retry_parameters:\n    task_retry_limit: 3\n');
    const ok = await cli(['check-config', good], {});
    expect(ok.code).toBe(0);
    expect(ok.out).toContain(`${good}: OK`);
    expect(ok.out).toMatch(/jobs: pull, at most 3 lease\(s\)/);

    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'queue:\n- name: "not a name!"\n  mode: pull\n');
    const refused = await cli(['check-config', bad], {});
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('not a name!');

    expect((await cli(['check-config', join(dir, 'missing.xml')], {})).code).toBe(1);
    expect((await cli(['check-config'], { TASKQUEUE_CONFIG: good })).code).toBe(0);
  });
});
