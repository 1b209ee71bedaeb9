import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, jsonLines, openCliDatabase, snapshot } from './cli-harness.js';

describe('taskqueue search (on the database)', () => {
  let t: Awaited<ReturnType<typeof openCliDatabase>>;
  beforeAll(async () => {
    t = await openCliDatabase();
    await t.service.getQueue('work').add([
      { name: 'report-1', tag: 'daily', payload: '{"region":"north"}' },
      { name: 'report-2', tag: 'daily', payload: '{"region":"south"}' },
      { name: 'report-3', tag: 'weekly', payload: '{"region":"north"}' },
      { name: 'cleanup', payload: 'x' },
    ]);
    const [task] = await t.service.getQueue('work').leaseTasks({ lease: 60, maxTasks: 1, tag: 'weekly' });
    await t.service.getQueue('work').failTask(task!, 'quota exceeded');
  });
  afterAll(() => t.close());

  it('prints the matches as a table or JSON lines, and where to go on when more may match', async () => {
    const before = await snapshot(t);
    const table = await cli(['search', 'work', '--name-prefix', 'report', '--payload', 'north'], t.env);
    expect(table.code, table.err).toBe(0);
    expect(table.out).toMatch(/^NAME\s+TAG\s+RETRIES\s+ETA\s+LAST ERROR$/m);
    expect(table.out).toMatch(/^report-1\s+daily\s+0\s+\S+Z\s+-$/m);
    expect(table.out).toMatch(/^report-3\s+weekly\s+1\s+\S+Z\s+quota exceeded$/m);
    expect(table.out).not.toContain('report-2');
    expect(table.err).toBe('');

    const failing = await cli(['search', 'work', '--state', 'failing', '--error', 'QUOTA', '--json'], t.env);
    expect(jsonLines(failing.out)).toEqual([
      expect.objectContaining({ name: 'report-3', queue: 'work', tag: 'weekly', lastError: 'quota exceeded' }),
    ]);

    const first = await cli(['search', 'work', '--tag', 'daily', '--limit', '1', '--json'], t.env);
    expect(jsonLines(first.out).map((task) => task.name)).toEqual(['report-1']);
    const cursor = /--cursor (\S+)$/m.exec(first.err)?.[1];
    expect(cursor, first.err).toBeDefined();
    const next = await cli(['search', 'work', '--tag', 'daily', '--cursor', cursor!, '--json'], t.env);
    expect(jsonLines(next.out).map((task) => task.name)).toEqual(['report-2']);
    expect(next.err).toBe('');
    // A read: nothing changed, nothing recorded.
    expect(await snapshot(t)).toEqual(before);
    expect(await t.sql(`select 1 from ${t.schema}.audit_log`)).toEqual([]);
  });

  it('refuses a bad search: usage errors exit 2, a filter the core refuses exits 1 with its message', async () => {
    expect((await cli(['search', 'work', '--state', 'sleeping'], t.env)).code).toBe(2);
    expect((await cli(['search', 'work', '--tag', 'a', '--tag-prefix', 'b'], t.env)).code).toBe(2);
    expect((await cli(['search', 'work', '--limit', '101'], t.env)).code).toBe(2);
    const bad = await cli(['search', 'work', '--name-prefix', 'not a name'], t.env);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/namePrefix must be the start of a task name/);
  });
});
