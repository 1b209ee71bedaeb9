import { QueueError } from '../core/errors.js';

/**
 * A schedule that cannot be used: a QueueError INVALID_CONFIG whose message
 * names the job (when known), the schedule as written and the column where
 * parsing stopped, such as
 * `job "digest": schedule "every 5 minuets": stopped at column 9 ("minuets"): expected "minutes" or "mins" or "hours"`.
 */
export class ScheduleError extends QueueError {
  /** 1-based column where parsing stopped; past the end for a schedule cut short. */
  readonly column: number;

  constructor(
    readonly schedule: string,
    offset: number,
    readonly found: string,
    readonly reason: string,
    readonly job?: string,
  ) {
    super('INVALID_CONFIG', describe(schedule, offset, found, reason, job), {
      field: 'schedule',
      schedule,
      column: offset + 1,
      ...(job === undefined ? {} : { job }),
    });
    this.column = offset + 1;
  }

  /** The same error, naming the job. */
  forJob(job: string): ScheduleError {
    return new ScheduleError(this.schedule, this.column - 1, this.found, this.reason, job);
  }
}

function describe(schedule: string, offset: number, found: string, reason: string, job: string | undefined): string {
  const where =
    offset >= schedule.length ? 'stopped at the end' : `stopped at column ${offset + 1} (${JSON.stringify(found)})`;
  const prefix = job === undefined ? '' : `job ${JSON.stringify(job)}: `;
  return `${prefix}schedule ${JSON.stringify(schedule)}: ${where}: ${reason}`;
}
