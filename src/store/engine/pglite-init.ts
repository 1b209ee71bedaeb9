import { spawn } from 'node:child_process';
import { existsSync, readdirSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PGlite } from '@electric-sql/pglite';

/**
 * PostgreSQL settings of the embedded engine, chosen for memory. PGlite
 * runs PostgreSQL in one WebAssembly heap that only ever grows, so every
 * buffer PostgreSQL fills stays resident for the life of the process. The
 * defaults (128 MB of shared buffers, 64 MB for maintenance) are sized for a
 * server of its own; the embedded engine serves one process's queues, and
 * its tables fit in a few MB of cache (reads beyond it come from the OS page
 * cache, not the disk). Measured with `npm run bench:memory`, see
 * docs/performance.md.
 */
export const PGLITE_MEMORY_SETTINGS: Readonly<Record<string, string>> = {
  // PGlite alone: 128 MB resident with 16 MB, 112 MB with 8 MB;
  // wal_buffers follows it (1/32: 256 kB).
  shared_buffers: '8MB',
  temp_buffers: '2MB',
  work_mem: '2MB',
  maintenance_work_mem: '16MB',
};

/** PGlite's start parameters plus the memory settings. */
export function pgliteStartParams(): string[] {
  return [
    ...PGlite.defaultStartParams,
    ...Object.entries(PGLITE_MEMORY_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
  ];
}

/**
 * Makes sure `pgdata` holds an initialised database. A new one is made by a
 * short-lived child process: PGlite's initdb runs a second PostgreSQL and
 * the initdb program in WebAssembly heaps of their own, and a heap once
 * grown is never given back; in this process they left about 450 MB
 * resident for good. The child builds the database under a temporary name
 * and it is moved into place only when complete, so a crash halfway leaves
 * nothing half made.
 */
export async function initPGliteDataDir(pgdata: string): Promise<void> {
  if (existsSync(join(pgdata, 'PG_VERSION'))) return;
  if (existsSync(pgdata) && readdirSync(pgdata).length > 0) {
    throw new Error(
      `${pgdata} holds files but no database (no PG_VERSION); move them away or choose another data directory`,
    );
  }
  const temp = `${pgdata}.init-${process.pid}`;
  rmSync(temp, { recursive: true, force: true });
  // The package's ES module entry, found from here (works from src/ and dist/ alike).
  const entry = pathToFileURL(
    join(dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), 'index.js'),
  ).href;
  const script = [
    `const { PGlite } = await import(${JSON.stringify(entry)});`,
    `const db = await PGlite.create({ dataDir: process.argv[1] });`,
    `await db.close();`,
  ].join('\n');
  const stderr = await new Promise<{ code: number | null; text: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, temp], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let text = '';
    child.stderr.on('data', (chunk: Buffer) => (text = (text + chunk.toString('utf8')).slice(-4000)));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, text }));
  });
  if (stderr.code !== 0 || !existsSync(join(temp, 'PG_VERSION'))) {
    rmSync(temp, { recursive: true, force: true });
    throw new Error(`initdb of ${pgdata} failed (exit ${stderr.code}): ${stderr.text.trim()}`);
  }
  // An empty directory is replaced (rmdir refuses one that filled up meanwhile).
  if (existsSync(pgdata)) rmdirSync(pgdata);
  renameSync(temp, pgdata);
}
