import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { localToken } from './local-token.js';
import { OwnPostgres } from './own-postgres.js';
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
  /** Stops everything; keeps the servers' logs when keepLogs (printing where). */
  close(keepLogs: boolean): Promise<void>;
}

export async function openTestBed(servers: number, log: (line: string) => void): Promise<TestBed> {
  const workDir = mkdtempSync(join(tmpdir(), 'taskqueue-torture-'));
  const database = await OwnPostgres.create();
  let fleet: ServerFleet | null = null;
  try {
    await database.start();
    const databaseUrl = database.url('postgres');
    log(`own PostgreSQL cluster on 127.0.0.1:${database.port} (${database.dir})`);
    const configPath = writeQueueConfig(workDir);
    fleet = await ServerFleet.start(servers, {
      repoDir: REPO_DIR,
      logDir: workDir,
      env: { DATABASE_URL: databaseUrl, TASKQUEUE_CONFIG: configPath, TASKQUEUE_ADMINS: ADMIN },
    });
    log(`${servers} servers: ${fleet.slots.map((slot) => slot.url).join(' ')} (logs in ${workDir})`);
    const token = await localToken(REPO_DIR, databaseUrl, ADMIN);
    const caller = new RestCaller(fleet.slots, `Bearer ${token}`);
    const started = fleet;
    return {
      database,
      databaseUrl,
      fleet: started,
      caller,
      token,
      workDir,
      async close(keepLogs) {
        await started.stop();
        database.destroy();
        if (keepLogs) log(`servers' logs kept in ${workDir}`);
        else rmSync(workDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await fleet?.stop();
    database.destroy();
    throw error;
  }
}
