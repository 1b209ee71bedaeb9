/**
 * The record of operator actions (pause, resume, purge, delete a task,
 * release a lease, redrive dead letters): who, what, when, how many. The
 * console writes an entry for each action it performs and lists them.
 * `store/audit-log.ts` keeps them in PostgreSQL (sql/0010).
 */
export type AuditAction = 'pause' | 'resume' | 'purge' | 'delete_task' | 'release_lease' | 'redrive';

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
}

export interface AuditLog {
  record(entry: NewAuditEntry): Promise<AuditEntry>;
  /** Newest first. */
  list(options: AuditListOptions): Promise<AuditEntry[]>;
}

