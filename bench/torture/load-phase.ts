import { Chaos, type ChaosPlan, type Outage } from './chaos.js';
import { runConsumer, type ConsumerRole } from './consumer.js';
import { runSqlConsumer } from './sql-consumer.js';
import { readFinalState } from './final-state.js';
import { checkInvariants, type Verdict } from './invariants.js';
import { Ledger } from './ledger.js';
import { pacer } from './pacer.js';
import { runProducer } from './producer.js';
import { now, type Incident } from './rest-caller.js';
import { StorageSampler } from './storage-sampler.js';
import type { TestBed } from './test-bed.js';
import { sleep } from './sleep.js';
import { LIMITED_QUEUE, MAIN_QUEUE, queuePath, type Anomaly, type Workload } from './workload.js';

export interface LoadOptions {
  readonly producers: number;
  readonly consumers: number;
  /** Share of the main queue's consumers that let their leases lapse. */
  readonly lapsing: number;
  /** Stop after this many answered operations (Workload.countOps)... */
  readonly targetOps: number;
  /** ...or after this long, whichever comes first. */
  readonly maxSeconds: number;
  /** null: no kills, no outages. */
  readonly chaos: ChaosPlan | null;
  /** Requests per second in all, 0 = as fast as the clients go (read on every request). */
  readonly perSecond: () => number;
  /** Producers wait while the main queue holds more tasks than this (its stats, read every second); 0 = no cap. */
  readonly backlogCap: number;
}

let runs = 0;

export interface LoadReport {
  readonly ops: number;
  readonly requests: number;
  readonly seconds: number;
  readonly ledger: Ledger;
  readonly verdicts: Verdict[];
  readonly anomalies: Anomaly[];
  readonly kills: { server: number; downMs: number }[];
  readonly outages: Outage[];
  readonly chaosFailures: string[];
  /** 5xx other than 503, at any time. */
  readonly serverErrors: Incident[];
  /** 503s while the database was down or the servers had not yet resumed (allowed). */
  readonly outage503s: Incident[];
  /** 503s at any other time (not allowed). */
  readonly stray503s: Incident[];
  /** Requests that got no answer within the client's timeout. */
  readonly hangs: Incident[];
  readonly unexpectedExits: number;
  readonly crashes: string[];
  readonly maxLimitedBytes: number;
  readonly statusCounts: Map<number, number>;
  readonly connectionFailures: number;
}

/** After the servers resume, a 503 of a pooled connection broken by the outage is still the outage's. */
const RESUME_GRACE_MS = 2000;

/** Producers and consumers over REST until the op count or the time bound, with the chaos alongside; then the checks. */
export async function runLoad(bed: TestBed, options: LoadOptions, log: (line: string) => void): Promise<LoadReport> {
  const ledger = new Ledger();
  const chaos = new Chaos();
  const anomalies: Anomaly[] = [];
  const started = now();
  const deadline = started + options.maxSeconds * 1000;
  const baseRequests = bed.caller.completed;
  let ops = 0;
  // The op count ends the run only once the chaos has had its say (a fast machine reaches the
  // count within a few kills): at least minKills kills and every planned outage.
  const chaosDone = () =>
    !options.chaos ||
    (chaos.kills.length >= options.chaos.minKills && chaos.outages.length >= options.chaos.outageAtOps.length);
  const stopped = () => (ops >= options.targetOps && chaosDone()) || now() >= deadline;
  let backlog = 0;
  const workload: Workload = {
    run: runs++,
    caller: bed.caller,
    ledger,
    anomalies,
    countOps: (n) => {
      ops += n;
    },
    backlogFull: () => options.backlogCap > 0 && backlog > options.backlogCap,
    stopped,
    pace: pacer(options.perSecond),
  };
  // The backlog as a producer would see it: the queue's stats over REST.
  const watchBacklog = async () => {
    while (options.backlogCap > 0 && !stopped()) {
      const exchange = await bed.caller.call('GET', `${queuePath(MAIN_QUEUE)}?getStats=true`);
      if (exchange.status === 200)
        backlog = Number(
          (JSON.parse(exchange.body.toString('utf8')) as { stats?: { totalTasks?: number } }).stats?.totalTasks ?? 0,
        );
      await sleep(1000);
    }
  };
  const sampler = new StorageSampler(bed.databaseUrl, LIMITED_QUEUE);
  const roles: ConsumerRole[] = [];
  const lapsingCount = Math.round((options.consumers - 1) * options.lapsing);
  roles.push({ id: 0, queue: LIMITED_QUEUE, lapses: false, pauseMs: 300 });
  for (let id = 1; id < options.consumers; id += 1) {
    const lapses = id <= lapsingCount;
    roles.push({ id, queue: MAIN_QUEUE, lapses, pauseMs: lapses ? 100 : 0 });
  }
  const progress = setInterval(() => {
    log(
      `  ${((now() - started) / 1000).toFixed(0)} s: ${ops} operations, ${ledger.acknowledgedAdds.size} adds, ` +
        `${ledger.tasksLeased} tasks leased, ${ledger.acknowledgedDeletes.size} deletes, ${chaos.kills.length} kills, ${chaos.outages.length} outages`,
    );
  }, 10_000);
  try {
    await Promise.all([
      ...Array.from({ length: options.producers }, (_, id) => runProducer(workload, id)),
      ...roles.map((role) => runConsumer(workload, role)),
      // One more consumer of the main queue, through the SQL API, beside the REST ones.
      runSqlConsumer(workload, roles.length, MAIN_QUEUE, bed.databaseUrl).then((counts) =>
        log(
          `  SQL-function consumer: ${counts.leaseCalls} lease_tasks calls, ${counts.tasksLeased} tasks leased, ${counts.deletes} deleted`,
        ),
      ),
      watchBacklog(),
      options.chaos
        ? chaos.run(options.chaos, bed.fleet, bed.database, bed.caller, ledger, () => ops, stopped)
        : Promise.resolve(),
    ]);
  } finally {
    clearInterval(progress);
    await sampler.stop();
  }
  const seconds = (now() - started) / 1000;
  const final = await readFinalState(bed.databaseUrl);
  const verdicts = checkInvariants(ledger, final, sampler.max);

  const incidents = bed.caller.incidents.filter((incident) => incident.end >= started);
  const duringOutage = (incident: Incident) =>
    chaos.outages.some(
      (outage) =>
        incident.end >= outage.stoppedAt &&
        incident.start <= (outage.resumedAt[incident.server] ?? Infinity) + RESUME_GRACE_MS,
    );
  return {
    ops,
    requests: bed.caller.completed - baseRequests,
    seconds,
    ledger,
    verdicts,
    anomalies,
    kills: chaos.kills,
    outages: chaos.outages,
    chaosFailures: chaos.failures,
    // 507 is the storage limit's answer (quotaExceeded), expected of the limited queue.
    serverErrors: incidents.filter(
      (incident) => incident.status >= 500 && incident.status !== 503 && incident.status !== 507,
    ),
    outage503s: incidents.filter((incident) => incident.status === 503 && duringOutage(incident)),
    stray503s: incidents.filter((incident) => incident.status === 503 && !duringOutage(incident)),
    hangs: incidents.filter((incident) => incident.failure === 'timeout'),
    unexpectedExits: bed.fleet.slots.reduce((sum, slot) => sum + slot.unexpectedExits, 0),
    crashes: bed.fleet.slots.flatMap((slot) => slot.crashes),
    maxLimitedBytes: sampler.max,
    statusCounts: bed.caller.statusCounts,
    connectionFailures: bed.caller.connectionFailures,
  };
}

/** True when the run kept every promise; failures are printed by report(). */
export function loadPassed(report: LoadReport): boolean {
  return (
    report.verdicts.every((verdict) => verdict.violations === 0) &&
    report.anomalies.length === 0 &&
    report.chaosFailures.length === 0 &&
    report.serverErrors.length === 0 &&
    report.stray503s.length === 0 &&
    report.hangs.length === 0 &&
    report.unexpectedExits === 0
  );
}

/** The run as lines of text. */
export function describeLoad(report: LoadReport): string[] {
  const l = report.ledger;
  const lines = [
    `${report.ops} operations (${report.requests} HTTP requests) in ${report.seconds.toFixed(1)} s (${(report.ops / report.seconds).toFixed(0)} operations/s); ` +
      `${l.acknowledgedAdds.size} adds acknowledged (${l.unknownAdds.size} unanswered, ${l.addsRefusedForStorage} refused by the storage limit), ` +
      `${l.leaseCalls} leases (${l.emptyLeases} empty) of ${l.tasksLeased} tasks, ${l.acknowledgedDeletes.size} deletes acknowledged`,
    `statuses: ${[...report.statusCounts]
      .sort((a, b) => a[0] - b[0])
      .map(([status, count]) => `${status} x${count}`)
      .join(', ')}; ` + `${report.connectionFailures} requests refused or cut by a killed server`,
  ];
  if (report.kills.length > 0) {
    const down = report.kills.map((kill) => kill.downMs).sort((a, b) => a - b);
    lines.push(`${report.kills.length} kill -9s, each server back (healthy) in ${down[0]}-${down[down.length - 1]} ms`);
  }
  for (const [i, outage] of report.outages.entries()) {
    const resumed = outage.resumedAt.map((at) => ((at - outage.backAt) / 1000).toFixed(2)).join('/');
    const fast = report.outage503s.filter(
      (incident) => incident.end >= outage.stoppedAt && incident.start <= outage.backAt,
    );
    const slowest = Math.max(0, ...fast.map((incident) => incident.end - incident.start));
    lines.push(
      `database outage ${i + 1}: down ${((outage.backAt - outage.stoppedAt) / 1000).toFixed(1)} s (stop -m immediate, start with crash recovery); ` +
        `${fast.length} 503s meanwhile, slowest ${slowest.toFixed(0)} ms; servers resumed ${resumed} s after the database, none restarted`,
    );
  }
  lines.push(
    `largest sampled storage of the limited queue: ${report.maxLimitedBytes} bytes`,
    `5xx other than 503: ${report.serverErrors.length}; 503 outside outages: ${report.stray503s.length}; hangs: ${report.hangs.length}; ` +
      `server crashes: ${report.unexpectedExits}; chaos failures: ${report.chaosFailures.length}; anomalies: ${report.anomalies.length}`,
  );
  for (const verdict of report.verdicts) {
    lines.push(
      `${verdict.violations === 0 ? 'ok  ' : 'FAIL'} ${verdict.name}: ${verdict.violations} violations in ${verdict.checked} checks`,
    );
    for (const example of verdict.examples) lines.push(`       ${example}`);
  }
  const show = (title: string, items: readonly unknown[]) => {
    for (const item of items.slice(0, 5)) lines.push(`FAIL ${title}: ${JSON.stringify(item)}`);
  };
  show('5xx', report.serverErrors);
  show('503 outside an outage', report.stray503s);
  show('hang', report.hangs);
  show('chaos', report.chaosFailures);
  show('anomaly', report.anomalies);
  for (const crash of report.crashes) lines.push(`FAIL crash: ${crash}`);
  return lines;
}
