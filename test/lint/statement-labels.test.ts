import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/** The rule that every SQL statement of src/store opens with its label, proved on probe files through ESLint's Node API. */
const eslint = new ESLint({ cwd: new URL('../..', import.meta.url).pathname });

async function labelErrors(code: string, filePath = 'src/store/probe.ts'): Promise<string[]> {
  const [result] = await eslint.lintText(`import { sql } from 'kysely';\ndeclare const db: never;\n${code}\n`, {
    filePath,
  });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'statements/labelled')
    .map((m) => m.messageId ?? m.message);
}

describe('statements/labelled', () => {
  it.each([
    ['an executed statement', 'export const run = () => sql`select 1`.execute(db);'],
    ['a statement built to run later', 'export const q = sql`update t set x = 1`;'],
    ['a CTE statement', 'export const q = sql<{ n: number }>`\n  with a as (select 1) select * from a`;'],
    ['a label in the wrong form', 'export const q = sql`/* Lease-Tasks */ select 1`;'],
    ['a label that is not first', 'export const q = sql`select /* lease */ 1`;'],
  ])('fails %s', async (_what, code) => {
    expect(await labelErrors(code)).toHaveLength(1);
  });

  it('passes labelled statements, fragments, and files outside src/store', async () => {
    expect(await labelErrors('export const run = () => sql`/* lease_tasks */ select 1`.execute(db);')).toEqual([]);
    expect(await labelErrors('export const q = sql`/* is_paused */\n  select paused from t`;')).toEqual([]);
    expect(await labelErrors('export const f = (id: number) => sql`and id < ${id}::int8`;')).toEqual([]);
    expect(await labelErrors('export const run = () => sql`select 1`.execute(db);', 'src/http/probe.ts')).toEqual([]);
  });

  it('fails one label given to two different statements of a file', async () => {
    const code = 'export const a = sql`/* twice */ select 1`;\nexport const b = sql`/* twice */ select 2`;';
    expect(await labelErrors(code)).toEqual(['duplicate']);
  });
});
