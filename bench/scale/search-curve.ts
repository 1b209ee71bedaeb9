import { encodeCursor, type TaskSearch } from '../../src/core/task-search.js';
import { openBenchService, type BenchService } from '../lib/service-bench.js';
import { progress } from './progress.js';
import { formatCount } from './svg-chart.js';
import { inRounds, seqScans, settle, timeCalls, timeOnce, type Latency } from './measure.js';

/** One point of the search curve: p50/p99 of one search request (a page of 50) through the service. */
export interface SearchPoint {
  readonly tasks: number;
  readonly fillSeconds: number;
  /** A name prefix matching up to 111 tasks (the primary key's range). */
  readonly namePrefix: Latency;
  /** One tag of 100 (tasks_tag_lease_idx): the page fills at once. */
  readonly tag: Latency;
  /** A tag prefix (`tag-4`: 11 of the 100 tags), a range of the same index. */
  readonly tagPrefix: Latency;
  /** Error text that one task in 100,000 has: each request reads its 10,000 candidates and stops, bounded. */
  readonly errorText: Latency;
  /** The same, going on from the middle of the queue (a cursor). */
  readonly errorTextMiddle: Latency;
  /** Payload text no task has: 10,000 payloads read, bounded. */
  readonly payloadText: Latency;
  /** State `failing` (has a last error): bounded as the error text. */
  readonly failing: Latency;
  /** What the error-text request reports: candidates read, and that it stopped at the limit. */
  readonly errorScanned: number;
  readonly errorBounded: boolean;
  /** Sequential scans of tasks over the whole point (0 = every request walked an index). */
  readonly tasksSeqScans: number;
}

const FILL_CHUNK = 1_000_000;

/**
 * `count` tasks in the bench queue: names task-1..N in ETA order, 100 tags
 * (tag-0..tag-99, round robin), a JSON payload of about 40 bytes, and a last
 * error on one task in 100,000; through the add trigger as every scale fill.
 */
export async function fillSearchable(bench: BenchService, count: number): Promise<void> {
  const [row] = (await bench.admin.query<{ id: number }>(`select id from ${bench.schema}.queues where name = 'bench'`))
    .rows;
  for (let from = 1; from <= count; from += FILL_CHUNK) {
    await bench.admin.query(
      `insert into ${bench.schema}.tasks (queue_id, name, eta, tag, payload, last_error)
       select $1, 'task-' || g, now() - interval '1 day' + g * interval '1 microsecond', 'tag-' || (g % 100),
              convert_to('{"order":' || g || ',"customer":"c' || (g % 1000) || '"}', 'UTF8'),
              case when g % 100000 = 0 then 'disk full on worker ' || (g % 7) end
         from generate_series($2::int8, $3::int8) g`,
      [row!.id, from, Math.min(count, from + FILL_CHUNK - 1)],
    );
    if (count > FILL_CHUNK)
      progress(`  filled ${formatCount(Math.min(count, from + FILL_CHUNK - 1))} of ${formatCount(count)} tasks`);
  }
}

/** A fresh schema with `count` searchable tasks, vacuumed and analyzed; each kind of search timed in rounds. */
export async function searchPoint(url: string, count: number): Promise<SearchPoint> {
  const bench = await openBenchService(url, 4);
  try {
    const fillMs = await timeOnce(async () => {
      await fillSearchable(bench, count);
      await bench.admin.query(`vacuum (analyze) ${bench.schema}.tasks`);
    });
    await settle(bench.admin);
    const queue = bench.queue;
    const search = (make: (i: number) => TaskSearch, calls: number) => () =>
      timeCalls(calls, (i) => queue.searchTasks({ limit: 50, ...make(i) }));
    // The middle task's position, as a cursor of the ETA walk would carry it.
    const middle = Math.floor(count / 2);
    const [mid] = (
      await bench.admin.query<{ eta_usec: string }>(
        `select (extract(epoch from t.eta) * 1000000)::int8 as eta_usec
           from ${bench.schema}.tasks t join ${bench.schema}.queues q on q.id = t.queue_id
          where q.name = 'bench' and t.name = $1`,
        [`task-${middle}`],
      )
    ).rows;
    const cursor = encodeCursor('eta', { etaUsec: Number(mid!.eta_usec), name: `task-${middle}`, tag: null });
    // Warm-up: prepared statements, and the first pages of each index in cache.
    await search(() => ({ errorText: 'disk full' }), 5)();
    const namePrefix = await inRounds(search((i) => ({ namePrefix: `task-${10_000 + ((i * 7919) % 90_000)}` }), 100));
    const tag = await inRounds(search((i) => ({ tag: `tag-${i % 100}` }), 100));
    const tagPrefix = await inRounds(search(() => ({ tagPrefix: 'tag-4' }), 100));
    const errorText = await inRounds(search(() => ({ errorText: 'disk full' }), 30));
    const errorTextMiddle = await inRounds(search(() => ({ errorText: 'disk full', cursor }), 30));
    const payloadText = await inRounds(search(() => ({ payloadText: '"customer":"zzz"' }), 30));
    const failing = await inRounds(search(() => ({ state: 'failing' }), 30));
    const once = await queue.searchTasks({ errorText: 'disk full' });
    await bench.service.close();
    const scans = await seqScans(bench.admin, bench.schema, ['tasks']);
    return {
      tasks: count,
      fillSeconds: fillMs / 1000,
      namePrefix,
      tag,
      tagPrefix,
      errorText,
      errorTextMiddle,
      payloadText,
      failing,
      errorScanned: once.scanned,
      errorBounded: once.bounded,
      tasksSeqScans: scans.tasks ?? 0,
    };
  } finally {
    await bench.close();
  }
}
