import pg from 'pg';
import type { BenchService } from './service-bench.js';

/**
 * The Citus coordinator `npm run bench -- --citus` measures: the one
 * scripts/citus/cluster.sh starts (on TASKQUEUE_CITUS_PORT, as the script
 * reads it, default 5640), unless TASKQUEUE_CITUS_URL names another. The
 * same rule as the Citus test suite's (test/citus/cluster.ts).
 */
export function benchCitusUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env.TASKQUEUE_CITUS_URL ?? `postgres://postgres@127.0.0.1:${env.TASKQUEUE_CITUS_PORT ?? '5640'}/test`;
}

/**
 * Checks that `url` is a Citus coordinator with at least two active
 * workers, and returns their count; otherwise throws, saying how to start
 * one. Figures from a plain PostgreSQL mistaken for Citus would compare it
 * with itself.
 */
export async function checkCitusCoordinator(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ workers: string }>(
      `select count(*) as workers from pg_dist_node where noderole = 'primary' and groupid <> 0 and isactive`,
    );
    const workers = Number(rows[0]?.workers ?? 0);
    if (workers < 2) throw new Error(`${workers} active workers, the Citus bench needs 2`);
    return workers;
  } catch (error) {
    throw new Error(
      `npm run bench -- --citus needs a Citus coordinator with two workers at ${url} (${String(error)}). ` +
        'Start one with `bash scripts/citus/cluster.sh start` (Citus installed for the local PostgreSQL; ' +
        'TASKQUEUE_CITUS_PORT sets its port, default 5640; README, "Tests on Citus"), ' +
        'or point TASKQUEUE_CITUS_URL at a coordinator.',
      { cause: error },
    );
  } finally {
    await client.end().catch(() => {});
  }
}

/** What the coordinator sent the workers for one call. */
export interface RemoteCommands {
  readonly commands: number;
  readonly ports: readonly number[];
  readonly twoPhase: boolean;
}

/** The calls counted, in the order they run (each leaves what the next needs). */
export const REMOTE_CALLS = ['add 1', 'add 100', 'lease 1', 'lease 100', 'modify', 'delete 100'] as const;

/**
 * The remote commands per call on the Citus service `bench` (its queue
 * empty), counted as test/citus/remote-commands.test.ts counts them: with
 * `citus.log_remote_commands` on, the coordinator reports each command it
 * issues as a LOG notice ("issuing ..."). The calls go through the SQL API's
 * functions, which run the service's statements; a function's transaction
 * adds the BEGIN and COMMIT around them. Returns the figures and the port of
 * the worker that holds the queue.
 */
export async function countRemoteCommands(
  bench: BenchService,
  url: string,
): Promise<{ home: number; calls: Record<(typeof REMOTE_CALLS)[number], RemoteCommands> }> {
  const s = pg.escapeIdentifier(bench.schema);
  const { rows: queue } = await bench.admin.query<{ id: number }>(`select id from ${s}.queues where name = 'bench'`);
  const { rows: placement } = await bench.admin.query<{ port: number }>(
    `select n.nodeport as port
       from pg_dist_placement p join pg_dist_node n on n.groupid = p.groupid
      where p.shardid = get_shard_id_for_distribution_column($1::regclass, $2::int4)`,
    [`${s}.tasks`, queue[0]!.id],
  );
  const home = Number(placement[0]?.port);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const notices: { message: string; detail: string }[] = [];
    client.on('notice', (n) => notices.push({ message: n.message ?? '', detail: n.detail ?? '' }));
    await client.query('set citus.log_remote_commands = on');
    await client.query('set client_min_messages = log');
    const measure = async (text: string, params: unknown[] = []): Promise<RemoteCommands> => {
      notices.length = 0;
      await client.query(text, params);
      const issued = notices.filter((n) => n.message.startsWith('issuing '));
      const ports = [...new Set(issued.map((n) => Number(/:(\d+) /.exec(n.detail)?.[1])))].sort();
      return { commands: issued.length, ports, twoPhase: issued.some((n) => /PREPARE TRANSACTION/.test(n.message)) };
    };
    const add1 = await measure(`select ${s}.add_task('bench', 'x'::bytea)`);
    const add100 = await measure(
      `select ${s}.add_tasks('bench', array(select 'x'::bytea from generate_series(1, 100)))`,
    );
    const lease1 = await measure(`select * from ${s}.lease_tasks('bench', 1, 60)`);
    const lease100 = await measure(`select * from ${s}.lease_tasks('bench', 100, 60)`);
    const { rows: held } = await bench.admin.query<{ name: string; token: string }>(
      `select name, eta::text as token from ${s}.tasks order by name limit 1`,
    );
    const modify = await measure(`select ${s}.modify_lease('bench', $1, $2::timestamptz, 120)`, [
      held[0]!.name,
      held[0]!.token,
    ]);
    const { rows: all } = await bench.admin.query<{ name: string }>(`select name from ${s}.tasks limit 100`);
    const delete100 = await measure(`select ${s}.delete_tasks('bench', $1::text[])`, [all.map((r) => r.name)]);
    return {
      home,
      calls: {
        'add 1': add1,
        'add 100': add100,
        'lease 1': lease1,
        'lease 100': lease100,
        modify,
        'delete 100': delete100,
      },
    };
  } finally {
    await client.end();
  }
}

/**
 * `fsync` and `synchronous_commit` of a server, or of a coordinator and each
 * of its workers, as `fsync=on synchronous_commit=on` (distinct values only).
 * scripts/citus/cluster.sh turns both off (test settings) where the plain
 * server usually has them on: the commit-bound figures, one-task leases most,
 * then compare a flush against none.
 */
export async function durability(url: string, citus: boolean): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const setting = `'fsync=' || current_setting('fsync') || ' synchronous_commit=' || current_setting('synchronous_commit')`;
    const values = [(await client.query<{ v: string }>(`select ${setting} as v`)).rows[0]!.v];
    if (citus) {
      const { rows } = await client.query<{ v: string }>(
        `select result as v from run_command_on_workers($$select ${setting}$$)`,
      );
      values.push(...rows.map((r) => r.v));
    }
    return [...new Set(values)].join(' | ');
  } finally {
    await client.end();
  }
}
