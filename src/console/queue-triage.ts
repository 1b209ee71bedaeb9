import type { QueueAttention } from '../core/queue-attention.js';
import { LONG_LEASE_MINUTES, type QueueOverview } from '../core/queue-overview.js';
import type { TriageThresholds } from '../core/triage-thresholds.js';
import { formatCount, plural, storagePercent } from './format.js';
import { formatRelative } from './relative-time.js';

/** Storage use, in percent of the limit, from which a queue is flagged. */
export const STORAGE_WARNING_PERCENT = 80;

/** What may need an operator, most urgent first. */
export const PROBLEMS = [
  'failing deliveries',
  'no target URL',
  'stuck leases',
  'dead letters arriving',
  'backlog growing',
  'backlog',
  'storage',
  'stalled',
  'paused',
] as const;
export type Problem = (typeof PROBLEMS)[number];

/**
 * How much each problem weighs in a queue's rank. Failures a human must fix
 * (deliveries failing, nowhere to deliver, leases nobody will return, tasks
 * dying now) outrank load (a backlog, storage), which outranks the quiet
 * signs (a stalled queue, a pause someone chose). Powers of two: one
 * problem outranks any number of lighter ones.
 */
const WEIGHT: Readonly<Record<Problem, number>> = {
  'failing deliveries': 256,
  'no target URL': 128,
  'stuck leases': 64,
  'dead letters arriving': 32,
  'backlog growing': 16,
  backlog: 8,
  storage: 4,
  stalled: 2,
  paused: 1,
};

/** One problem of a queue and its figures in words ("12 tasks for 55m 3s, HTTP 502"). */
export interface Flag {
  readonly problem: Problem;
  readonly detail: string;
}

/** What the triage knows of a queue beyond its overview; every part may be missing (then it flags nothing). */
export interface QueueSignals {
  /** Failing push deliveries and dead letters arrived (store/queue-attention.ts). */
  readonly attention?: QueueAttention;
  /** Available tasks `backlogWindowSeconds` ago, from the depth samples. */
  readonly availableBefore?: number;
  /**
   * Leases held by workers that will not return them, when known; without
   * it, the overview's long leases (more than LONG_LEASE_MINUTES still to
   * run) stand for them: a worker that died holding an hour's lease keeps
   * its task from every other worker for that hour, and nothing else says so.
   */
  readonly stuckLeases?: number;
}

/** A queue as the queues page ranks it. */
export interface TriagedQueue {
  readonly overview: QueueOverview;
  readonly flags: readonly Flag[];
  /** The sum of its problems' weights: the rank, biggest first. */
  readonly score: number;
}

/** A threshold's duration as an operator writes it: 300 -> "5 min", 3600 -> "1 h", 90 -> "90 s". */
export function formatDuration(seconds: number): string {
  if (seconds % 86400 === 0) return `${seconds / 86400} d`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/**
 * An age to the minute ("55 min", "2.1 h"): the words of a flag change as
 * seldom as what they flag, so a refresh that finds nothing new is a 304.
 */
function roughly(seconds: number): string {
  return formatRelative(-seconds * 1000).replace(/ ago$/, '');
}

/** The problems of one queue, most urgent first, each with its figures. */
export function flagsOf(q: QueueOverview, signals: QueueSignals, t: TriageThresholds): Flag[] {
  const flags: Flag[] = [];
  const add = (problem: Problem, detail: string) => flags.push({ problem, detail });
  const a = signals.attention;
  if (q.push && a && a.failingDeliveries > 0 && (a.failingForSeconds ?? 0) >= t.pushFailingSeconds) {
    const why = a.failingStatus !== null ? `HTTP ${a.failingStatus}` : (a.failingError ?? 'no response');
    add(
      'failing deliveries',
      `${plural(a.failingDeliveries, 'task')} failing, the longest for ${roughly(a.failingForSeconds ?? 0)}: ${why}`,
    );
  }
  // Only with tasks to deliver: an empty push queue nobody uses (the built-in `default`) is no alarm.
  const tasks = q.availableTasks + q.leasedTasks + q.delayedTasks;
  if (q.push && q.push.targetUrl === null && tasks > 0) {
    add('no target URL', `${plural(tasks, 'task')}, nowhere to deliver: no <target-url> or TASKQUEUE_PUSH_BASE_URL`);
  }
  const stuck = signals.stuckLeases ?? q.longLeases ?? 0;
  if (stuck > 0) {
    add('stuck leases', `${plural(stuck, 'lease')} with more than ${LONG_LEASE_MINUTES} min still to run`);
  }
  if (a && a.deadLettersArrived > 0) {
    add(
      'dead letters arriving',
      `${formatCount(a.deadLettersArrived)} in the last ${formatDuration(t.deadLetterSeconds)}`,
    );
  }
  const growth = signals.availableBefore === undefined ? 0 : q.availableTasks - signals.availableBefore;
  if (growth >= t.backlogGrowthTasks) {
    add(
      'backlog growing',
      `${formatCount(q.availableTasks)} available, ${formatCount(growth)} more than ${formatDuration(t.backlogWindowSeconds)} ago`,
    );
  } else if (q.availableTasks >= t.backlogTasks) {
    add('backlog', `${formatCount(q.availableTasks)} available`);
  }
  const percent = storagePercent(q.storageBytes, q.storageLimitBytes);
  if (percent !== null && percent >= STORAGE_WARNING_PERCENT) add('storage', `${percent}% of the limit`);
  // A paused queue's tasks wait by choice: its pause is the flag, not their age.
  if (!q.paused && q.oldestAvailableAgeSeconds !== null && q.oldestAvailableAgeSeconds >= t.stalledSeconds) {
    add('stalled', `oldest available task waiting ${roughly(q.oldestAvailableAgeSeconds)}`);
  }
  if (q.paused) add('paused', 'paused');
  return flags;
}

/**
 * Problem queues first, the most urgent problems first (see WEIGHT), then
 * the rest in configuration order: what an operator woken at night looks
 * for is at the top. Old dead letters, a few old tasks, a steady small
 * backlog are no problem: they are in their columns, not in the ranking.
 */
export function triage(
  queues: readonly QueueOverview[],
  signalsOf: (name: string) => QueueSignals,
  t: TriageThresholds,
): TriagedQueue[] {
  return queues
    .map((overview, i) => {
      const flags = flagsOf(overview, signalsOf(overview.name), t);
      return { overview, flags, score: flags.reduce((sum, f) => sum + WEIGHT[f.problem], 0), i };
    })
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map(({ overview, flags, score }) => ({ overview, flags, score }));
}

/** The line above the table: how many queues, how many tasks wait, and how many queues have each problem. */
export interface QueueSummary {
  readonly queues: number;
  readonly waiting: number;
  readonly deadLetters: number;
  /** Queues per problem, in PROBLEMS order, only those with at least one. */
  readonly problems: ReadonlyArray<readonly [Problem, number]>;
}

export function summarize(triaged: readonly TriagedQueue[]): QueueSummary {
  let waiting = 0;
  let deadLetters = 0;
  const counts = new Map<Problem, number>();
  for (const { overview: q, flags } of triaged) {
    waiting += q.availableTasks + q.delayedTasks + q.leasedTasks;
    deadLetters += q.deadLetters;
    for (const f of flags) counts.set(f.problem, (counts.get(f.problem) ?? 0) + 1);
  }
  return {
    queues: triaged.length,
    waiting,
    deadLetters,
    problems: PROBLEMS.flatMap((p) => (counts.has(p) ? [[p, counts.get(p)!] as const] : [])),
  };
}
