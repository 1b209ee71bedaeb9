/**
 * What makes a queue need a human now, in numbers an operator reads on the
 * console's queues page and changes with TASKQUEUE_CONSOLE_TRIAGE
 * (config/triage-settings.ts, docs/console.md "Triage").
 */
export interface TriageThresholds {
  /** A push task undelivered this long after its first attempt, its last attempt failed: "failing deliveries". */
  readonly pushFailingSeconds: number;
  /** Available tasks from which a queue has a "backlog", growing or not. */
  readonly backlogTasks: number;
  /** Available tasks gained over `backlogWindowSeconds` that make a backlog "growing". */
  readonly backlogGrowthTasks: number;
  /** The window growth is measured over (the depth samples, sql/0013, keep an hour). */
  readonly backlogWindowSeconds: number;
  /** Dead letters that died this recently are "arriving"; older ones are history, not an alarm. */
  readonly deadLetterSeconds: number;
  /** An available task waiting this long in a queue that is not paused: "stalled" (nobody takes its tasks). */
  readonly stalledSeconds: number;
}

export const DEFAULT_TRIAGE_THRESHOLDS: TriageThresholds = {
  pushFailingSeconds: 300,
  backlogTasks: 10_000,
  backlogGrowthTasks: 1_000,
  backlogWindowSeconds: 600,
  deadLetterSeconds: 3600,
  stalledSeconds: 3600,
};
