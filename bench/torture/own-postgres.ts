import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

/**
 * A PostgreSQL 15 cluster of the harness's own, in a temporary directory on
 * a free loopback port: the harness stops it with `-m immediate` (a crash,
 * as far as the server knows) and starts it again under load, which it must
 * never do to a cluster someone else uses. Run as root, the cluster belongs
 * to the `postgres` user (initdb refuses root); otherwise to the caller.
 */
export class OwnPostgres {
  readonly dir: string;
  readonly port: number;
  readonly #bin: string;
  readonly #asPostgres: boolean;

  private constructor(dir: string, port: number, bin: string) {
    this.dir = dir;
    this.port = port;
    this.#bin = bin;
    this.#asPostgres = userInfo().uid === 0;
  }

  /** initdb into a fresh temporary directory; the cluster is not started yet. */
  static async create(bin = postgresBinaries()): Promise<OwnPostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'taskqueue-torture-pg-'));
    const pg = new OwnPostgres(dir, await freePort(), bin);
    if (pg.#asPostgres) {
      const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
      chownSync(dir, uid, gid);
    }
    pg.#run('initdb', ['-D', pg.dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    // Settings (the harness's choice, written here so the report can show them):
    // fsync off because no test here crashes the machine, only the server
    // (committed work is in the OS page cache, which survives a process crash).
    const settings = [
      `port = ${pg.port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      'max_connections = 200',
      'shared_buffers = 128MB',
      'fsync = off',
      'full_page_writes = off',
      'log_autovacuum_min_duration = 0',
      'autovacuum_naptime = 10s',
    ];
    // Overwriting keeps the file's owner (the cluster's).
    writeFileSync(join(pg.dataDir, 'postgresql.auto.conf'), settings.join('\n') + '\n');
    return pg;
  }

  get dataDir(): string {
    return join(this.dir, 'data');
  }

  /** The connection string of database `name`. */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** Starts the cluster and waits until it accepts connections. */
  async start(): Promise<void> {
    await this.#runAsync('pg_ctl', [
      '-D',
      this.dataDir,
      '-l',
      join(this.dir, 'postgres.log'),
      '-w',
      '-t',
      '60',
      'start',
    ]);
  }

  /** `pg_ctl -m immediate stop`: every backend is killed at once, no checkpoint; recovery runs at the next start. */
  async stopImmediate(): Promise<void> {
    await this.#runAsync('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', 'stop']);
  }

  /** Stops the cluster (if running) and removes its directory. */
  destroy(): void {
    try {
      this.#run('pg_ctl', ['-D', this.dataDir, '-m', 'fast', '-w', 'stop']);
    } catch {
      // not running
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Runs a PostgreSQL binary as the cluster's owner. */
  #run(program: string, args: string[]): void {
    const [file, argv] = this.#command(program, args);
    execFileSync(file, argv, { stdio: ['ignore', 'pipe', 'pipe'], cwd: this.dir });
  }

  /** The same without blocking the event loop (the load goes on meanwhile). */
  async #runAsync(program: string, args: string[]): Promise<void> {
    const [file, argv] = this.#command(program, args);
    await promisify(execFile)(file, argv, { cwd: this.dir });
  }

  #command(program: string, args: string[]): [string, string[]] {
    const path = join(this.#bin, program);
    return this.#asPostgres ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
  }
}

/** Debian's PostgreSQL binaries: the newest installed (the version .ci/run starts). */
function postgresBinaries(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(`${root}/${v}/bin/initdb`)) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error(`no PostgreSQL binaries under ${root} (apt-get install postgresql)`);
  return `${root}/${newest}/bin`;
}
