/**
 * `npm run torture`: the service from outside, under load and chaos, on a
 * PostgreSQL cluster of the harness's own (see docs/reliability.md).
 *
 *   npm run torture                  the full form: ~200,000 requests with kills and outages, then the hostile requests
 *   npm run torture -- --short       CI's short form: >= 50,000 requests, 1 outage, fewer hostile requests
 *   npm run torture -- --soak        the 10-minute soak at half the measured maximum (not in CI)
 *   --only load|fuzz|soak|runners|exec|push|claims|cron, --ops N, --seconds N, --fuzz-runs N, --seed N, --soak-minutes N
 *
 * Needs `npm run build` first (it runs `node dist/main.js`) and PostgreSQL 15's
 * binaries (/usr/lib/postgresql/15/bin). Exits non-zero on any broken promise.
 */
import { parseArgs } from 'node:util';
import { cronPreemptionPassed, describeCronPreemption, runCronPreemption } from './cron-preemption.js';
import { describeExecRunner, execRunnerPassed, runExecRunner } from './exec-runner-phase.js';
import { runFuzz } from './fuzz-phase.js';
import { runRpcFuzz } from './rpc-fuzz-phase.js';
import { describeLoad, loadPassed, runLoad } from './load-phase.js';
import { claimRecoveryPassed, describeClaimRecovery, runClaimRecovery } from './push-claim-recovery.js';
import { describePush, pushPassed, runPush } from './push-phase.js';
import { describeRunners, runnersPassed, runRunners } from './runner-phase.js';
import { describeSoak, runSoak, soakPassed } from './soak-phase.js';
import { openTestBed } from './test-bed.js';

const { values } = parseArgs({
  options: {
    short: { type: 'boolean', default: false },
    soak: { type: 'boolean', default: false },
    only: { type: 'string' },
    ops: { type: 'string' },
    seconds: { type: 'string' },
    'fuzz-runs': { type: 'string' },
    'soak-minutes': { type: 'string' },
    seed: { type: 'string' },
  },
  strict: true,
});

const log = (line: string) => console.log(`[torture ${new Date().toISOString().slice(11, 19)}] ${line}`);
const short = values.short ?? false;
if (
  values.only !== undefined &&
  !['load', 'fuzz', 'rpc', 'soak', 'runners', 'exec', 'push', 'claims', 'cron'].includes(values.only)
) {
  throw new Error(
    `--only takes load, fuzz, rpc, soak, runners, exec, push, claims or cron, not ${JSON.stringify(values.only)}`,
  );
}
const phases = values.only
  ? [values.only]
  : values.soak
    ? ['soak']
    : ['load', 'runners', 'exec', 'push', 'claims', 'cron', 'fuzz', 'rpc'];
let failed = false;
/** A server that stays under this through the hostile requests has bounded memory (it idles near 100 MB). */
const FUZZ_RSS_LIMIT = 400 * 2 ** 20;

const bed = await openTestBed(3, log);
try {
  if (phases.includes('load')) {
    const targetOps = Number(values.ops ?? (short ? 50_000 : 200_000));
    const maxSeconds = Number(values.seconds ?? (short ? 600 : 1500));
    log(
      `load: 16 producers, 32 consumers (30% let leases lapse), ${targetOps} operations or ${maxSeconds} s; kill -9 every 2-6 s`,
    );
    const outages = short ? [0.4] : [0.2, 0.45, 0.7];
    const report = await runLoad(
      bed,
      {
        producers: 16,
        consumers: 32,
        lapsing: 0.3,
        targetOps,
        maxSeconds,
        chaos: {
          killEveryMs: 4000,
          minKills: short ? 8 : 40,
          outageAtOps: outages.map((at) => Math.round(at * targetOps)),
          outageMs: 3000,
        },
        perSecond: () => 0,
        backlogCap: 0,
      },
      log,
    );
    for (const line of describeLoad(report)) log(line);
    if (report.ops < targetOps)
      log(`note: the time bound (${maxSeconds} s) ended the run at ${report.ops} of ${targetOps} operations`);
    if (!loadPassed(report)) failed = true;
  }
  if (phases.includes('runners')) {
    const tasks = short ? 2_000 : 6_000;
    log(
      `runners: ${tasks} tasks, 4 consumer processes on the REST worker runner (concurrency 8, 3 s leases), kill -9 every 1-3 s`,
    );
    const report = await runRunners(bed, tasks, 4, log);
    for (const line of describeRunners(report)) log(line);
    if (!runnersPassed(report)) failed = true;
  }
  if (phases.includes('exec')) {
    const report = await runExecRunner(bed, log);
    for (const line of describeExecRunner(report)) log(line);
    if (!execRunnerPassed(report)) failed = true;
  }
  if (phases.includes('push')) {
    const options = short
      ? { addSeconds: 20, hooksPerSecond: 150, burst: 100, burstEveryMs: 4000, killSeconds: 14, outagesAtSeconds: [8] }
      : {
          addSeconds: 60,
          hooksPerSecond: 150,
          burst: 100,
          burstEveryMs: 4000,
          killSeconds: 45,
          outagesAtSeconds: [12, 33],
        };
    log(
      `push: ${options.addSeconds} s of adds (${options.hooksPerSecond}/s to a queue capped at 48 requests in flight, bursts of ${options.burst} every ` +
        `${options.burstEveryMs / 1000} s to one at 40/s, bucket 8), every server dispatching to the harness's sink; kill -9 every 1.5-4.5 s for ${options.killSeconds} s, ${options.outagesAtSeconds.length} outage(s) of 3 s`,
    );
    const report = await runPush(bed, options, log);
    for (const line of describePush(report)) log(line);
    if (!pushPassed(report)) failed = true;
  }
  if (phases.includes('claims')) {
    log(
      'push claims: a queue at its cap of 2, its servers killed with kill -9; the others must deliver its 16 tasks within 60 s',
    );
    const report = await runClaimRecovery(bed, log);
    for (const line of describeClaimRecovery(report)) log(line);
    if (!claimRecoveryPassed(report)) failed = true;
  }
  if (phases.includes('cron')) {
    const report = await runCronPreemption(bed, log);
    for (const line of describeCronPreemption(report)) log(line);
    if (!cronPreemptionPassed(report)) failed = true;
  }
  if (phases.includes('fuzz')) {
    const runs = Number(values['fuzz-runs'] ?? (short ? 3000 : 20_000));
    const seed = Number(values.seed ?? Date.now() % 2 ** 31);
    log(
      `hostile requests: ${runs} generated by fast-check (seed ${seed}; --seed ${seed} repeats them) against server 0`,
    );
    const report = await runFuzz(bed, runs, seed, log);
    const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
    log(
      `${report.requests} hostile requests in ${report.seconds.toFixed(1)} s (${report.unsendable} the HTTP client would not send, ` +
        `${report.closedOnOversizedBody} with large bodies closed before the client read the early answer); ` +
        `statuses: ${[...report.statusCounts]
          .sort((a, b) => a[0] - b[0])
          .map(([status, count]) => `${status} x${count}`)
          .join(', ')}`,
    );
    log(
      `server RSS: ${mb(report.rssStartBytes)} before, ${mb(report.rssPeakBytes)} at most, ${mb(report.rssEndBytes)} after`,
    );
    if (report.counterexample) log(`FAIL a hostile request broke a promise (shrunk): ${report.counterexample}`);
    for (const crash of report.crashes) log(`FAIL crash: ${crash}`);
    if (report.rssPeakBytes > FUZZ_RSS_LIMIT)
      log(`FAIL server RSS reached ${mb(report.rssPeakBytes)}, over ${mb(FUZZ_RSS_LIMIT)}`);
    if (report.counterexample || report.crashes.length > 0 || report.rssPeakBytes > FUZZ_RSS_LIMIT) failed = true;
  }
  if (phases.includes('rpc')) {
    const runs = Number(values['fuzz-runs'] ?? (short ? 1000 : 5000));
    const seed = Number(values.seed ?? Date.now() % 2 ** 31);
    log(`App Engine API: ${runs} generated /rpc_http envelopes (seed ${seed}) against a service of its own`);
    const report = await runRpcFuzz(bed, runs, seed);
    log(
      `${report.requests} envelopes in ${report.seconds.toFixed(1)} s; statuses: ${[...report.statusCounts]
        .sort((a, b) => a[0] - b[0])
        .map(([status, count]) => `${status} x${count}`)
        .join(', ')}`,
    );
    if (report.counterexample) {
      log(`FAIL an envelope broke a promise (shrunk): ${report.counterexample}`);
      failed = true;
    }
  }
  if (phases.includes('soak')) {
    const minutes = Number(values['soak-minutes'] ?? 10);
    const report = await runSoak(bed, minutes, log);
    for (const line of describeSoak(report)) log(line);
    if (!soakPassed(report)) failed = true;
  }
} finally {
  await bed.close(failed);
}
log(failed ? 'FAILED' : 'passed');
process.exit(failed ? 1 : 0);
