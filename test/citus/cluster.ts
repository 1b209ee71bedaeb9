import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';

/** The coordinator scripts/citus/cluster.sh starts (on TASKQUEUE_CITUS_PORT, as the script), unless TASKQUEUE_CITUS_URL names another. */
export function citusUrl(): string {
  return (
    process.env.TASKQUEUE_CITUS_URL ?? `postgres://postgres@127.0.0.1:${process.env.TASKQUEUE_CITUS_PORT ?? 5640}/test`
  );
}

const script = fileURLToPath(new URL('../../scripts/citus/cluster.sh', import.meta.url));

/** Runs scripts/citus/cluster.sh (start; stop <node>), for the worker-outage test. */
export async function cluster(...args: string[]): Promise<void> {
  await promisify(execFile)('bash', [script, ...args]);
}

/** The port of the worker that holds a queue's shard of `<schema>.tasks`. */
export async function workerPortOf(schema: string, queueId: number): Promise<number> {
  const client = new pg.Client({ connectionString: citusUrl() });
  await client.connect();
  try {
    const { rows } = await client.query<{ port: number }>(
      `select n.nodeport as port
         from pg_dist_placement p join pg_dist_node n on n.groupid = p.groupid
        where p.shardid = get_shard_id_for_distribution_column($1::regclass, $2::int4)`,
      [`${pg.escapeIdentifier(schema)}.tasks`, queueId],
    );
    if (rows[0] === undefined) throw new Error(`no placement for queue ${queueId} of ${schema}`);
    return Number(rows[0].port);
  } finally {
    await client.end();
  }
}

/** The node name cluster.sh gives a port (coordinator, worker1, worker2). */
export function nodeName(port: number, coordinatorPort = Number(new URL(citusUrl()).port)): string {
  const index = port - coordinatorPort;
  if (index < 1 || index > 2) throw new Error(`port ${port} is not one of cluster.sh's workers`);
  return `worker${index}`;
}
