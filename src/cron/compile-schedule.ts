import { Cron } from 'croner';
import { QueueError } from '../core/errors.js';
import { parseAppEngineSchedule, type AppEngineSchedule } from './app-engine-schedule.js';
import { nextIntervalFiring } from './interval-firing.js';
import { ScheduleError } from './schedule-error.js';
import { nextSpecificFiring } from './specific-firing.js';
import { canonicalTimeZone } from './zoned-time.js';

/** A schedule ready to answer "when next?". */
export interface CompiledSchedule {
  /** The schedule as written. */
  readonly text: string;
  /** `app-engine` for App Engine's grammar, `cron` for a five-field cron expression. */
  readonly syntax: 'app-engine' | 'cron';
  /** The parsed App Engine schedule; null for a cron expression. */
  readonly parsed: AppEngineSchedule | null;
  /** The IANA zone its local times are read in. */
  readonly timeZone: string;
  /** The first firing strictly after `after`. */
  next(after: Date): Date;
}

export interface CompileOptions {
  /** IANA zone name; default UTC. */
  readonly timeZone?: string;
  /** The job's name, for messages. */
  readonly job?: string;
}

/**
 * Compiles a schedule: App Engine's grammar (see app-engine-schedule.ts),
 * or, as an extension, a standard five-field cron expression (`30 9 * * 1-5`,
 * names and `@daily`-style nicknames allowed, day-of-month and day-of-week
 * OR-ed as in Vixie cron); isCronExpression tells the two apart.
 *
 * Daylight saving is the same in both: a local time skipped by a
 * spring-forward fires at the first instant after the gap, and one that
 * happens twice fires once. Cron expressions whose minute or hour is a
 * wildcard or step (`*\/15 * * * *`) are intervals and fire at every real
 * instant that matches, in both passes of a repeated hour.
 *
 * Throws ScheduleError (INVALID_CONFIG) naming the job, the text and where
 * parsing stopped; an unknown time zone is INVALID_CONFIG too.
 */
export function compileSchedule(text: string, options: CompileOptions = {}): CompiledSchedule {
  const timeZone = checkTimeZone(options.timeZone ?? 'UTC', options.job);
  try {
    return isCronExpression(text) ? compileCron(text, timeZone) : compileAppEngine(text, timeZone);
  } catch (error) {
    if (error instanceof ScheduleError && options.job !== undefined) throw error.forJob(options.job);
    throw error;
  }
}

/** Words of App Engine's grammar that no cron expression has. */
const APP_ENGINE_WORDS =
  /(^|[^a-z0-9])(every\w*|of|day|month|quarter|from|to|synchronized|hours|mins|minutes|first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th)([^a-z0-9]|$)/i;

/**
 * True when a schedule is to be read as a cron expression rather than App
 * Engine's grammar: it has no `HH:MM` and none of the grammar's own words,
 * so a schedule such as `1st mon of jan` (its time forgotten) is still
 * reported by the App Engine parser.
 */
export function isCronExpression(text: string): boolean {
  const trimmed = text.trim();
  return trimmed !== '' && !trimmed.includes(':') && !APP_ENGINE_WORDS.test(trimmed);
}

/** The first `count` firings strictly after `after`, in order. */
export function nextFirings(schedule: CompiledSchedule, after: Date, count: number): Date[] {
  const firings: Date[] = [];
  let from = after;
  for (let i = 0; i < count; i += 1) {
    from = schedule.next(from);
    firings.push(from);
  }
  return firings;
}

function compileAppEngine(text: string, timeZone: string): CompiledSchedule {
  const parsed = parseAppEngineSchedule(text);
  const next = (after: Date): Date => {
    const ms = after.getTime();
    return new Date(
      parsed.kind === 'interval' ? nextIntervalFiring(parsed, ms, timeZone) : nextSpecificFiring(parsed, ms, timeZone),
    );
  };
  return { text, syntax: 'app-engine', parsed, timeZone, next };
}

const NICKNAMES = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

function compileCron(text: string, timeZone: string): CompiledSchedule {
  const trimmed = text.trim();
  const fields = trimmed.split(/\s+/);
  const nickname = fields.length === 1 && trimmed.startsWith('@');
  if (nickname && !NICKNAMES.has(trimmed.toLowerCase())) {
    throw new ScheduleError(
      text,
      text.indexOf('@'),
      trimmed,
      `unknown nickname; use one of ${[...NICKNAMES].join(', ')}`,
    );
  }
  if (!nickname && fields.length !== 5) {
    throw new ScheduleError(
      text,
      fields.length > 5 ? offsetOfField(text, 5) : text.length,
      fields.length > 5 ? (fields[5] ?? '') : '',
      `a cron expression has five fields (minute hour day-of-month month day-of-week), this has ${fields.length}`,
    );
  }
  let cron: Cron;
  try {
    cron = new Cron(nickname ? trimmed.toLowerCase() : trimmed, {
      timezone: timeZone,
      mode: '5-part',
      fixedTimeRule: 'no-wildcard',
      domAndDow: false,
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CronPattern: /, '') : String(error);
    throw new ScheduleError(
      text,
      offsetOfField(text, fieldOf(reason)),
      fields[fieldOf(reason)] ?? trimmed,
      `not a valid cron expression: ${reason}`,
    );
  }
  const next = (after: Date): Date => {
    const firing = cron.nextRun(after);
    if (firing === null) throw new Error(`cron expression "${text}" has no firing after ${after.toISOString()}`);
    return firing;
  };
  return { text, syntax: 'cron', parsed: null, timeZone, next };
}

const FIELD_NAMES = ['minute', 'hour', 'day', 'month', 'week'];

/** Which field croner's message is about (0-4), or 0 when it does not say. */
function fieldOf(reason: string): number {
  const lower = reason.toLowerCase();
  const index = FIELD_NAMES.findIndex((name) => lower.includes(name));
  return index < 0 ? 0 : index;
}

/** Offset of the n-th (0-based) whitespace-separated field. */
function offsetOfField(text: string, n: number): number {
  const pattern = /\S+/g;
  let match: RegExpExecArray | null;
  for (let i = 0; (match = pattern.exec(text)) !== null; i += 1) {
    if (i === n) return match.index;
  }
  return text.length;
}

function checkTimeZone(timeZone: string, job: string | undefined): string {
  if (canonicalTimeZone(timeZone) === undefined) {
    const prefix = job === undefined ? '' : `job ${JSON.stringify(job)}: `;
    throw new QueueError(
      'INVALID_CONFIG',
      `${prefix}unknown time zone ${JSON.stringify(timeZone)}; use an IANA name such as "Europe/Paris" or "UTC"`,
      {
        field: 'timezone',
        ...(job === undefined ? {} : { job }),
      },
    );
  }
  return timeZone;
}
