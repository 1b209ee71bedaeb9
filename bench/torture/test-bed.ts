import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { localToken } from './local-token.js';
import { OwnPostgres } from './own-postgres.js';
import { freePort } from './free-port.js';
import { PushSink } from './push-sink.js';
import { writeQueueConfig } from './queue-config.js';
import { RestCaller } from './rest-caller.js';
import { ServerFleet } from './server-fleet.js';

export const REPO_DIR = fileURLToPath(new URL('../../', import.meta.url));
export const ADMIN = 'torture@example.com';

/** The harness's own PostgreSQL cluster, N servers on it, and a client that speaks to them as an administrator. */
export interface TestBed {
  readonly database: OwnPostgres;
  readonly databaseUrl: string;
  readonly fleet: ServerFleet;
  readonly caller: RestCaller;
  readonly token: string;
  readonly workDir: string;
  /** The loopback server the push queues deliver to (the push phase sets its answers). */
  readonly sink: PushSink;
  /** The queue.xml every server runs with. */
  readonly configPath: string;
  /** Stops everything; keeps the servers' logs when keepLogs (printing where). */
  close(keepLogs: boolean): Promise<void>;
}

export async function openTestBed(servers: number, log: (line: string) => void): Promise<TestBed> {
  const workDir = mkdtempSync(join(tmpdir(), 'taskqueue-torture-'));
  const database = await OwnPostgres.create();
  let fleet: ServerFleet | null = null;
  let sink: PushSink | null = null;
  try {
    sink = await PushSink.start(await freePort());
    await database.start();
    const databaseUrl = database.url('postgres');
    log(`own PostgreSQL cluster on 127.0.0.1:${database.port} (${database.dir})`);
    const configPath = writeQueueConfig(workDir, sink.url);
    fleet = await ServerFleet.start(servers, {
      repoDir: REPO_DIR,
      logDir: workDir,
      env: { DATABASE_URL: databaseUrl, TASKQUEUE_CONFIG: configPath, TASKQUEUE_ADMINS: ADMIN },
    });
    log(`${servers} servers: ${fleet.slots.map((slot) => slot.url).join(' ')} (logs in ${workDir})`);
    const token = await localToken(REPO_DIR, databaseUrl, ADMIN);
    const caller = new RestCaller(fleet.slots, `Bearer ${token}`);
    const started = fleet;
    const startedSink = sink;
    return {
      database,
      databaseUrl,
      fleet: started,
      caller,
      token,
      workDir,
      sink: startedSink,
      configPath,
      async close(keepLogs) {
        await started.stop();
        await startedSink.close();
        database.destroy();
        if (keepLogs) log(`servers' logs kept in ${workDir}`);
        else rmSync(workDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await fleet?.stop();
    await sink?.close();
    database.destroy();
    throw error;
  }
}
