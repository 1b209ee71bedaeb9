/**
 * `npm run bench -- --scale`: the scale curves. Each point is a fresh schema
 * filled in SQL (generate_series) through statements the triggers see, then
 * measured through the service; each curve is printed as a table, saved as
 * JSON in bench/results/ and drawn as SVG charts beside it (and in
 * docs/scale/ with `--write-docs`; `--replot=FILE.json` draws a saved run's
 * charts again). See docs/performance.md, "Scale curves".
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { printTable } from '../lib/table.js';
import { heldPoint, type HeldPoint } from './held-curve.js';
import { mb, measureMigrationSeqScans, type Latency } from './measure.js';
import { pagesPoint, type PagesPoint } from './pages-curve.js';
import { queuesPoint, type QueuesPoint } from './queues-curve.js';
import { heldCharts, pagesCharts, queuesCharts, waitingCharts, type Charts } from './scale-charts.js';
import { checkDisk } from './disk-check.js';
import { progress } from './progress.js';
import { parseScaleOptions, type ScaleOptions } from './scale-options.js';
import { formatCount, renderLineChart } from './svg-chart.js';
import { searchPoint, type SearchPoint } from './search-curve.js';
import { waitingPoint, type WaitingPoint } from './waiting-curve.js';

const ms = (value: number) => value.toFixed(2);
const lat = (l: Latency) => `${ms(l.p50Ms)} / ${ms(l.p99Ms)}`;
const int = (value: number) => Math.round(value).toLocaleString('en-US');
const size = (bytes: number) => `${mb(bytes).toFixed(1)}`;

const log = progress;

async function waitingCurve(url: string, points: readonly number[]): Promise<WaitingPoint[]> {
  const results: WaitingPoint[] = [];
  for (const n of points) {
    log(`waiting tasks: ${formatCount(n)}`);
    results.push(await waitingPoint(url, n));
  }
  printTable(
    'scale: waiting tasks in one queue (lease p50 / p99 ms, one consumer, each lease followed by its delete)',
    [
      'waiting',
      'fill s',
      'lease 1',
      'lease 100',
      'add tasks/s',
      'table MiB',
      'indexes MiB',
      'tasks seq scans',
      'counters exact',
    ],
    results.map((p) => [
      formatCount(p.waiting),
      p.fillSeconds.toFixed(1),
      lat(p.lease1),
      lat(p.lease100),
      int(p.addTasksPerSecond),
      size(p.tasks.tableBytes),
      Object.entries(p.tasks.indexBytes)
        .map(([name, bytes]) => `${name.replace(/^tasks_/, '')} ${size(bytes)}`)
        .join(', '),
      `${p.tasksSeqScans}`,
      p.countersExact ? 'yes' : 'NO',
    ]),
  );
  return results;
}

async function queuesCurve(url: string, points: readonly number[]): Promise<QueuesPoint[]> {
  const results: QueuesPoint[] = [];
  for (const n of points) {
    log(`configured queues: ${formatCount(n)}`);
    results.push(await queuesPoint(url, n));
  }
  printTable(
    'scale: configured queues, 100k tasks spread over them (p50 / p99 ms)',
    [
      'queues',
      'config load ms',
      'first start ms',
      'restart ms',
      'lease 1',
      'add 1',
      'overview',
      'console list',
      'console table',
      'tasks seq scans',
      'counters exact',
    ],
    results.map((p) => [
      formatCount(p.queues),
      ms(p.configLoadMs),
      int(p.firstStartMs),
      int(p.restartMs),
      lat(p.lease1),
      lat(p.add1),
      lat(p.overview),
      lat(p.consolePage),
      lat(p.consoleTable),
      `${p.tasksSeqScans}`,
      p.countersExact ? 'yes' : 'NO',
    ]),
  );
  return results;
}

async function heldCurve(url: string, points: readonly number[]): Promise<HeldPoint[]> {
  const results: HeldPoint[] = [];
  for (const n of points) {
    log(`held names: ${formatCount(n)}`);
    results.push(await heldPoint(url, n));
  }
  printTable(
    'scale: held names (tombstones over 7.7 days, 7-day retention; p50 / p99 ms)',
    [
      'held',
      'implied adds/s',
      'add with name',
      'cleanup rows',
      'cleanup rows/s',
      'x add rate',
      'lease idle',
      'lease in cleanup',
      'slowdown p50',
      'MiB filled',
      'MiB after churn',
      'bloat',
      'seq scans',
    ],
    results.map((p) => [
      formatCount(p.held),
      p.impliedAddRate.toFixed(1),
      lat(p.namedAdd),
      int(p.cleanupRemoved),
      int(p.cleanupRowsPerSecond),
      int(p.cleanupOverAddRate),
      lat(p.leaseIdle),
      `${lat(p.leaseDuringCleanup)} (${p.leaseDuringCleanup.calls} calls)`,
      `${p.leaseSlowdownP50.toFixed(2)}x`,
      size(p.tombstones.totalBytes),
      size(p.afterChurn.totalBytes),
      `${p.bloatRatio.toFixed(2)}x`,
      `${p.tombstoneSeqScans}`,
    ]),
  );
  return results;
}

async function pagesCurve(url: string, points: readonly number[]): Promise<PagesPoint[]> {
  const results: PagesPoint[] = [];
  for (const n of points) {
    log(`dead letters and audit entries: ${formatCount(n)}`);
    results.push(await pagesPoint(url, n));
  }
  printTable(
    'scale: dead letters and audit log (p50 / p99 ms)',
    [
      'rows',
      'console queues',
      'console queue',
      'console audit',
      'audit, middle page',
      'CLI queues',
      'CLI dead-letters p.1',
      'middle page',
      'CLI all pages s',
      'seq scans',
    ],
    results.map((p) => [
      formatCount(p.rows),
      lat(p.consoleQueues),
      lat(p.consoleQueue),
      lat(p.consoleAudit),
      lat(p.consoleAuditMiddle),
      lat(p.cliQueues),
      lat(p.cliDeadLettersFirst),
      lat(p.cliDeadLettersMiddle),
      p.cliDeadLettersAllSeconds.toFixed(1),
      Object.entries(p.seqScans)
        .map(([table, count]) => `${table} ${count}`)
        .join(', '),
    ]),
  );
  return results;
}

async function searchCurve(url: string, points: readonly number[]): Promise<SearchPoint[]> {
  const results: SearchPoint[] = [];
  for (const n of points) {
    log(`searched tasks: ${formatCount(n)}`);
    results.push(await searchPoint(url, n));
  }
  printTable(
    'scale: searching one queue, a page of 50 per request (p50 / p99 ms; error, payload and failing stop at 10,000 candidates)',
    [
      'tasks',
      'fill s',
      'name prefix',
      'tag',
      'tag prefix',
      'error text',
      'error, middle',
      'payload text',
      'failing',
      'error scanned',
      'tasks seq scans',
    ],
    results.map((p) => [
      formatCount(p.tasks),
      p.fillSeconds.toFixed(1),
      lat(p.namePrefix),
      lat(p.tag),
      lat(p.tagPrefix),
      lat(p.errorText),
      lat(p.errorTextMiddle),
      lat(p.payloadText),
      lat(p.failing),
      `${int(p.errorScanned)}${p.errorBounded ? ' (bounded)' : ''}`,
      `${p.tasksSeqScans}`,
    ]),
  );
  return results;
}

function writeCharts(dirs: readonly string[], charts: Charts): void {
  for (const dir of dirs) {
    mkdirSync(dir, { recursive: true });
    for (const [name, chart] of Object.entries(charts)) writeFileSync(join(dir, `${name}.svg`), renderLineChart(chart));
  }
}

/** The charts of a saved run (`--replot=bench/results/scale-....json`), so a quoted run's charts can be drawn again. */
function replot(file: string, dirs: readonly string[], extraNote: string | undefined): void {
  const saved = JSON.parse(readFileSync(file, 'utf8')) as {
    date: string;
    loadAverage?: number[];
    cores?: number;
    waiting?: WaitingPoint[];
    queues?: QueuesPoint[];
    held?: HeldPoint[];
    pages?: PagesPoint[];
  };
  const load =
    saved.loadAverage === undefined
      ? ''
      : `, load average ${saved.loadAverage[0]!.toFixed(1)} on ${saved.cores ?? '?'} cores at start`;
  const note = `PostgreSQL, ${saved.date.slice(0, 10)}${load}${extraNote ? `; ${extraNote}` : ''}`;
  const charts: Charts = {
    ...(saved.waiting ? waitingCharts(saved.waiting, note) : {}),
    ...(saved.queues ? queuesCharts(saved.queues, note) : {}),
    ...(saved.held ? heldCharts(saved.held, note) : {}),
    ...(saved.pages ? pagesCharts(saved.pages, note) : {}),
  };
  writeCharts(dirs, charts);
  console.log(`drew ${Object.keys(charts).length} charts of ${file} to ${dirs.join(' and ')}`);
}

export async function runScale(url: string, argv: readonly string[]): Promise<void> {
  const replotFile = argv.find((arg) => arg.startsWith('--replot='))?.slice('--replot='.length);
  if (replotFile !== undefined) {
    // `--chart-note=TEXT`: said under each title (what the run was: small points, a busy machine).
    const extraNote = argv.find((arg) => arg.startsWith('--chart-note='))?.slice('--chart-note='.length);
    replot(replotFile, argv.includes('--write-docs') ? ['docs/scale'] : [replotFile.replace(/\.json$/, '')], extraNote);
    return;
  }
  const options: ScaleOptions = parseScaleOptions(argv);
  const started = Date.now();
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const chartDirs = [`bench/results/scale-${stamp}`, ...(argv.includes('--write-docs') ? ['docs/scale'] : [])];
  // The machine's load goes on every chart: figures taken beside other work say so.
  const note = `PostgreSQL, ${new Date().toISOString().slice(0, 10)}, load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores at start`;
  const results: Record<string, unknown> = {
    date: new Date().toISOString(),
    loadAverage: loadavg(),
    cores: cpus().length,
    options,
  };
  const charts: Charts = {};
  await checkDisk(url, options, argv.includes('--skip-disk-check'));
  await measureMigrationSeqScans(url);
  if (options.curves.includes('waiting')) {
    const points = await waitingCurve(url, options.waiting);
    results.waiting = points;
    Object.assign(charts, waitingCharts(points, note));
  }
  if (options.curves.includes('queues')) {
    const points = await queuesCurve(url, options.queues);
    results.queues = points;
    Object.assign(charts, queuesCharts(points, note));
  }
  if (options.curves.includes('held')) {
    const points = await heldCurve(url, options.held);
    results.held = points;
    Object.assign(charts, heldCharts(points, note));
  }
  if (options.curves.includes('pages')) {
    const points = await pagesCurve(url, options.pages);
    results.pages = points;
    Object.assign(charts, pagesCharts(points, note));
  }
  if (options.curves.includes('search')) results.search = await searchCurve(url, options.search);
  mkdirSync('bench/results', { recursive: true });
  const file = `bench/results/scale-${stamp}.json`;
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  writeCharts(chartDirs, charts);
  console.log(
    `\nwrote ${file} and ${Object.keys(charts).length} charts to ${chartDirs.join(' and ')} in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
}
