import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { sleep } from './sleep.js';

/** What every server process is started with (the service reads only its environment). */
export interface FleetOptions {
  readonly repoDir: string;
  readonly logDir: string;
  readonly env: Readonly<Record<string, string>>;
}

/** One `node dist/main.js` process slot: a fixed port, and the process currently serving it. */
export class ServerSlot {
  readonly index: number;
  readonly port: number;
  #child: ChildProcess | null = null;
  #exited: Promise<void> = Promise.resolve();
  #unexpectedExits = 0;
  /** How each unexpected exit ended, with the end of the server's log. */
  readonly crashes: string[] = [];
  #killing = false;
  starts = 0;

  constructor(index: number, port: number) {
    this.index = index;
    this.port = port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Exits nobody asked for (a crash): the harness fails on any. */
  get unexpectedExits(): number {
    return this.#unexpectedExits;
  }

  start(options: FleetOptions): void {
    const logPath = join(options.logDir, `server-${this.index}.log`);
    const log = openSync(logPath, 'a');
    const child = spawn(process.execPath, [join(options.repoDir, 'dist/main.js')], {
      cwd: options.repoDir,
      env: { PATH: process.env.PATH ?? '', ...options.env, PORT: String(this.port), HOST: '127.0.0.1' },
      stdio: ['ignore', log, log],
    });
    this.#child = child;
    this.starts += 1;
    this.#killing = false;
    this.#exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        if (!this.#killing) {
          this.#unexpectedExits += 1;
          const tail = readFileSync(logPath, 'utf8').split('\n').slice(-15).join('\n');
          this.crashes.push(
            `server ${this.index} (pid ${child.pid}) exited with ${signal ?? `code ${code}`}; its log ends:\n${tail}`,
          );
        }
        resolve();
      });
    });
  }

  /** `kill -9`, then waits until the process is reaped. */
  async kill9(): Promise<void> {
    if (!this.#child) return;
    this.#killing = true;
    this.#child.kill('SIGKILL');
    await this.#exited;
    this.#child = null;
  }

  /** Resident memory of the current process in bytes (from /proc), or 0 if none. */
  rssBytes(): number {
    const pid = this.pid;
    if (!pid) return 0;
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
      return kb ? Number(kb) * 1024 : 0;
    } catch {
      return 0;
    }
  }

  /** Waits until /healthz answers 200. */
  async waitHealthy(timeoutMs = 30_000): Promise<number> {
    const started = Date.now();
    for (;;) {
      try {
        const response = await fetch(`${this.url}/healthz`, { signal: AbortSignal.timeout(2000) });
        await response.arrayBuffer();
        if (response.status === 200) return Date.now() - started;
      } catch {
        // not listening yet
      }
      if (Date.now() - started > timeoutMs)
        throw new Error(`server ${this.index} (port ${this.port}) not healthy after ${timeoutMs} ms`);
      await sleep(50);
    }
  }
}

/** N server processes on one database, each on its own loopback port. */
export class ServerFleet {
  readonly slots: ServerSlot[];
  readonly #options: FleetOptions;

  private constructor(slots: ServerSlot[], options: FleetOptions) {
    this.slots = slots;
    this.#options = options;
  }

  static async start(count: number, options: FleetOptions): Promise<ServerFleet> {
    const slots: ServerSlot[] = [];
    for (let i = 0; i < count; i += 1) slots.push(new ServerSlot(i, await freePort()));
    const fleet = new ServerFleet(slots, options);
    for (const slot of slots) slot.start(options);
    await Promise.all(slots.map((slot) => slot.waitHealthy(60_000)));
    return fleet;
  }

  /** `kill -9` of one server, restarted at once on the same port; resolves when it is healthy again. */
  async killAndRestart(slot: ServerSlot): Promise<{ downMs: number }> {
    const started = Date.now();
    await slot.kill9();
    slot.start(this.#options);
    await slot.waitHealthy(60_000);
    return { downMs: Date.now() - started };
  }

  /** Starts a killed server again on its port; resolves when it is healthy. */
  async restart(slot: ServerSlot): Promise<void> {
    slot.start(this.#options);
    await slot.waitHealthy(60_000);
  }

  async stop(): Promise<void> {
    await Promise.all(this.slots.map((slot) => slot.kill9()));
  }
}
