/**
 * `npm run bench`'s options, checked before anything runs: a mistyped or
 * unknown option (`--help` included) used to start the whole benchmark, which
 * takes many minutes and loads the machine. Now `--help` prints this and an
 * unknown option or section is refused.
 */
export const BENCH_SECTIONS = [
  'add',
  'cycle',
  'worker',
  'accounting',
  'growth',
  'pglite',
  'push',
  'rest',
  'sqlapi',
  'appengine',
] as const;

const USAGE = `npm run bench -- [options]

  (no option)           every section, in-process, BENCH_RUNS (3) runs each
  --compare             also the raw SQL ceiling, pg-boss, graphile-worker and REST
  --quick               smaller counts (to iterate; the docs quote full runs)
  --only=a,b            just these sections: ${BENCH_SECTIONS.join(', ')}
  --citus               instead: plain PostgreSQL against a Citus coordinator with two workers
                        (adds of 100, lease+delete of 100 and of 1, and the remote commands per call;
                        docs/scaling.md); takes --quick. Start the cluster first:
                        bash scripts/citus/cluster.sh start
  --scale               the scale curves instead (docs/performance.md, "Scale curves"):
    --curves=a,b          waiting, queues, held, pages, search
    --points=10k,1m       points of every count curve chosen
    --waiting= --held= --pages= --search= --queues=   one curve's points
    --write-docs          also draw the charts into docs/scale/
    --replot=FILE         redraw a saved run's charts; --chart-note=TEXT under each title
    --skip-disk-check     go on when the free disk looks too small

Environment: DATABASE_URL (default the local test database), BENCH_RUNS;
for --citus, TASKQUEUE_CITUS_URL, or TASKQUEUE_CITUS_PORT (default 5640) as cluster.sh reads it.`;

const FLAGS = new Set(['--compare', '--quick', '--scale', '--citus', '--write-docs', '--skip-disk-check']);
const VALUED = [
  '--only=',
  '--curves=',
  '--points=',
  '--waiting=',
  '--held=',
  '--search=',
  '--pages=',
  '--queues=',
  '--replot=',
  '--chart-note=',
];

/** What is wrong with `args`, one line each: unknown options, unknown sections, `--citus` beside what it does not take. */
export function benchArgProblems(args: readonly string[]): string[] {
  const unknown = args.filter((arg) => !FLAGS.has(arg) && !VALUED.some((prefix) => arg.startsWith(prefix)));
  const only =
    args
      .find((arg) => arg.startsWith('--only='))
      ?.slice('--only='.length)
      .split(',') ?? [];
  const badSections = only.filter((name) => !(BENCH_SECTIONS as readonly string[]).includes(name));
  // --citus is a run of its own: these options would be silently ignored.
  const notWithCitus = args.includes('--citus')
    ? args.filter((arg) => arg !== '--citus' && arg !== '--quick' && !unknown.includes(arg))
    : [];
  return [
    ...unknown.map((arg) => `unknown option ${arg}`),
    ...badSections.map((name) => `unknown section "${name}" in --only (choose from ${BENCH_SECTIONS.join(', ')})`),
    ...notWithCitus.map((arg) => `${arg} does not go with --citus (it takes --quick only)`),
  ];
}

/** Exits with the usage on `--help`/`-h` (status 0) or on an unknown option or section (status 2). */
export function checkBenchArgs(args: readonly string[]): void {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(USAGE);
    process.exit(0);
  }
  const problems = benchArgProblems(args);
  if (problems.length === 0) return;
  console.error(`${problems.join('\n')}\n\n${USAGE}`);
  process.exit(2);
}
