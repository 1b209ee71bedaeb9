import type { QueueOverview } from '../core/queue-overview.js';
import { storagePercent } from './format.js';

/** Storage use, in percent of the limit, from which a queue is flagged. */
export const STORAGE_WARNING_PERCENT = 80;
/** Age of the oldest available task, in seconds, from which a queue is flagged (nobody is leasing it). */
export const OLD_TASK_SECONDS = 300;

/** What may need an operator, most urgent first. */
export type Problem = 'dead letters' | 'storage' | 'old tasks' | 'paused';

/** The problems of one queue, most urgent first. */
export function problemsOf(q: QueueOverview): Problem[] {
  const problems: Problem[] = [];
  if (q.deadLetters > 0) problems.push('dead letters');
  const percent = storagePercent(q.storageBytes, q.storageLimitBytes);
  if (percent !== null && percent >= STORAGE_WARNING_PERCENT) problems.push('storage');
  if (q.oldestAvailableAgeSeconds !== null && q.oldestAvailableAgeSeconds >= OLD_TASK_SECONDS)
    problems.push('old tasks');
  if (q.paused) problems.push('paused');
  return problems;
}

const WEIGHT: Record<Problem, number> = { 'dead letters': 8, storage: 4, 'old tasks': 2, paused: 1 };

/**
 * Problem queues first (the most urgent problems first: dead letters, then
 * storage, old tasks, paused), then the rest in configuration order: what
 * an operator woken at night looks for is at the top.
 */
export function triage(queues: readonly QueueOverview[]): QueueOverview[] {
  const score = (q: QueueOverview) => problemsOf(q).reduce((sum, p) => sum + WEIGHT[p], 0);
  return queues
    .map((q, i) => ({ q, i, score: score(q) }))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map((x) => x.q);
}

/** The line above the table: how many queues, how many tasks wait, and what needs looking at. */
export interface QueueSummary {
  readonly queues: number;
  readonly waiting: number;
  readonly withDeadLetters: number;
  readonly deadLetters: number;
  readonly paused: number;
  readonly nearStorageLimit: number;
  readonly oldTasks: number;
}

export function summarize(queues: readonly QueueOverview[]): QueueSummary {
  let waiting = 0;
  let withDeadLetters = 0;
  let deadLetters = 0;
  let paused = 0;
  let nearStorageLimit = 0;
  let oldTasks = 0;
  for (const q of queues) {
    waiting += q.availableTasks + q.delayedTasks + q.leasedTasks;
    deadLetters += q.deadLetters;
    const problems = problemsOf(q);
    if (problems.includes('dead letters')) withDeadLetters++;
    if (problems.includes('paused')) paused++;
    if (problems.includes('storage')) nearStorageLimit++;
    if (problems.includes('old tasks')) oldTasks++;
  }
  return { queues: queues.length, waiting, withDeadLetters, deadLetters, paused, nearStorageLimit, oldTasks };
}
