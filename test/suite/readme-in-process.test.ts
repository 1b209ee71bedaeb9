import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freshSchema, testPgUrl } from '../helpers/engines.js';

/**
 * README's "In-process API" block, run from top to bottom as a program
 * against README's own queue.xml: what a reader who pastes it gets. Only
 * what the block leaves to the reader is supplied (a Kysely `db` with an
 * `orders` table, an `order`, a `handle`).
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Inside node_modules, so the bundle finds its packages.
const OUT = join(ROOT, 'node_modules', '.cache', 'taskqueue-readme-test', randomBytes(4).toString('hex'));

async function readmeBlock(heading: string, language: string): Promise<string> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf(`\n${heading}\n`));
  const block = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(section)?.[1];
  if (!block) throw new Error(`README.md: no ${language} block under "${heading}"`);
  return block;
}

const PRELUDE = `import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
const schema = process.env.APP_SCHEMA;
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, allowExitOnIdle: true });
await pool.query(\`create schema \${schema}; create table \${schema}.orders (id int primary key)\`);
globalThis.db = new Kysely({ dialect: new PostgresDialect({ pool }) }).withSchema(schema);
globalThis.order = { id: 7 };
globalThis.handled = [];
globalThis.handle = async (payload) => void globalThis.handled.push(payload.toString());
process.once('beforeExit', () => console.log(JSON.stringify({ handled: globalThis.handled })));
`;

describe("README's in-process block", () => {
  const schema = freshSchema();
  const appSchema = `${schema}_app`;
  afterAll(async () => {
    await rm(OUT, { recursive: true, force: true });
    const client = new pg.Client({ connectionString: testPgUrl() });
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade; drop schema if exists ${appSchema} cascade`);
    await client.end();
  });

  it("runs in order, against README's queue.xml", { timeout: 120_000 }, async () => {
    await mkdir(OUT, { recursive: true });
    await writeFile(join(OUT, 'queue.xml'), await readmeBlock('### queue.xml', 'xml'));
    await writeFile(join(OUT, 'prelude.mjs'), PRELUDE);
    const block = (await readmeBlock('## In-process API', 'ts')).replace(
      `from 'taskqueue'`,
      `from ${JSON.stringify(join(ROOT, 'src/index.ts'))}`,
    );
    await writeFile(join(OUT, 'readme.ts'), `import './prelude.mjs';\n${block}`);
    await build({
      entryPoints: [join(OUT, 'readme.ts')],
      outfile: join(OUT, 'readme.mjs'),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      external: ['./prelude.mjs'],
      logLevel: 'silent',
    });
    const { stdout } = await promisify(execFile)(process.execPath, [join(OUT, 'readme.mjs')], {
      cwd: OUT,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: testPgUrl(), TASKQUEUE_SCHEMA: schema, APP_SCHEMA: appSchema },
      timeout: 100_000,
    });
    // Each task the block's consumer leased was handled: the tagged one, the named one and the order's.
    const last = JSON.parse(stdout.trim().split('\n').pop() ?? '') as { handled: string[] };
    expect(last.handled.sort()).toEqual(['7', 'monthly', JSON.stringify({ user: 42 })].sort());
  });
});
