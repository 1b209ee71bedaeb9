/**
 * The record of operator actions (pause, resume, purge, delete a task,
 * release a lease, redrive dead letters, import and export, run a cron job
 * now, run tasks now; create, update and delete a queue made through the
 * Cloud Tasks API): who, what, when, how many. Written by the core's operator API
 * (queue-operations.ts, `cron run` included) for every action,
 * whichever front-end asked; the console lists them.
 * `store/audit-log.ts` keeps them in PostgreSQL (sql/0010, 0020).
 */
/**
 * Names an entry keeps of the tasks its action touched (sql/0020): a
 * selection (at most LIMITS.maxTasksPerDelete, 1,000) is named in full, an
 * action on all matching a filter by its first 1,000, `count` being the
 * total. Bounded so that the log stays small and is written in the action's
 * own statement; a million-task run-now is not a million audit rows.
 */
export const AUDIT_NAMES_KEPT = 1000;

/** Every action the log records, in the order the console's filter lists them. */
export const AUDIT_ACTIONS = [
  'pause',
  'resume',
  'purge',
  'delete_task',
  'release_lease',
  'redrive',
  'delete_dead_letters',
  'import_tasks',
  'export_tasks',
  'cron_run',
  'run_now',
  'create_queue',
  'update_queue',
  'delete_queue',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * Who acts, and through which front-end: given once to
 * `service.operate(queue, who)`, written into every entry.
 */
export interface Operator {
  /** The caller's verified e-mail, `anonymous` with access control off, `cli:<login>` on the database. */
  readonly actor: string;
  /** The front-end: `console`, `rest`, `cli`, or the hosting application's own word. */
  readonly source: string;
}

/** An entry before its count is known: the statement that does the action counts it. */
export type AuditIntent = Omit<NewAuditEntry, 'count' | 'names'>;

/** What is recorded about one action. */
export interface NewAuditEntry {
  /** Who: the caller's verified e-mail, or `anonymous` when access control is off. */
  readonly actor: string;
  readonly action: AuditAction;
  readonly queue: string;
  /** The task the action named, if one. */
  readonly target?: string | null;
  /** How many tasks (or dead letters) the action touched. */
  readonly count: number;
  /** The names of the tasks it touched; only the first AUDIT_NAMES_KEPT are kept. */
  readonly names?: readonly string[];
  /** Where the action came from (default `console`). */
  readonly source?: string;
}

/** A recorded action. */
export interface AuditEntry {
  readonly id: number;
  /** When, in microseconds since the epoch (the database's clock). */
  readonly atUsec: number;
  readonly actor: string;
  readonly action: AuditAction;
  readonly queue: string;
  readonly target: string | null;
  readonly count: number;
  /**
   * The names of the tasks the action touched, at most AUDIT_NAMES_KEPT
   * (fewer than `count`: the rest were not kept); empty when it named none
   * (pause, purge) or was recorded before names were kept.
   */
  readonly names: readonly string[];
  readonly source: string;
}

export interface AuditListOptions {
  /** At most this many (1 to 1000). */
  readonly limit: number;
  /** Only entries older than this one (the last of the previous page). */
  readonly before?: Pick<AuditEntry, 'id'>;
  /** Only entries about this queue. */
  readonly queue?: string;
  /** Only entries by this actor. */
  readonly actor?: string;
  /** Only entries of these actions. */
  readonly actions?: readonly AuditAction[];
  /** Only entries from this source. */
  readonly source?: string;
  /** Only entries about queues whose name starts with this. */
  readonly queuePrefix?: string;
  /** Only entries by actors whose name contains this, any case (`alice`, `@example.com`, `cli:`). */
  readonly actorContains?: string;
  /** Only entries at or after this instant (microseconds since the epoch). */
  readonly sinceUsec?: number;
  /** Only entries before this instant (microseconds since the epoch). */
  readonly untilUsec?: number;
}

export interface AuditLog {
  record(entry: NewAuditEntry): Promise<AuditEntry>;
  /** Newest first. */
  list(options: AuditListOptions): Promise<AuditEntry[]>;
}
