import pg from 'pg';

/** The service's tables as they are after the run, read directly (the harness owns the database). */
export interface FinalState {
  /** Live tasks: name -> queue, payload, leases so far. */
  readonly tasks: Map<string, { queue: string; payload: Buffer; retryCount: number }>;
  /** Tombstoned names -> why. */
  readonly tombstones: Map<string, string>;
  /** Dead letters: name -> payload, leases. */
  readonly deadLetters: Map<string, { payload: Buffer; retryCount: number }>;
}

export async function readFinalState(databaseUrl: string, schema = 'taskqueue'): Promise<FinalState> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const tasks = await client.query<{ queue: string; name: string; payload: Buffer; retry_count: number }>(
      `select q.name as queue, t.name, t.payload, t.retry_count from ${schema}.tasks t join ${schema}.queues q on q.id = t.queue_id`,
    );
    const tombstones = await client.query<{ name: string; reason: string }>(
      `select name, reason from ${schema}.task_tombstones`,
    );
    const dead = await client.query<{ name: string; payload: Buffer; retry_count: number }>(
      `select name, payload, retry_count from ${schema}.task_dead_letters`,
    );
    return {
      tasks: new Map(
        tasks.rows.map((row) => [row.name, { queue: row.queue, payload: row.payload, retryCount: row.retry_count }]),
      ),
      tombstones: new Map(tombstones.rows.map((row) => [row.name, row.reason])),
      deadLetters: new Map(dead.rows.map((row) => [row.name, { payload: row.payload, retryCount: row.retry_count }])),
    };
  } finally {
    await client.end();
  }
}
