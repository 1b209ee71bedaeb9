import { QueueError } from './errors.js';
import { TASK_NAME_PATTERN, type Task, type TaskOptions } from './task.js';

/**
 * One line of an export (`taskqueue export`, `GET .../tasks/export`): what
 * an add can restore of a task (name, ETA, tag, payload). Retry counts and
 * enqueue times start afresh on import. The keys are always in this order,
 * so the same tasks export to the same bytes.
 */
export interface ExportLine {
  readonly name: string;
  /** When the task becomes leasable (for a leased task: its lease expiry), microseconds since the epoch. */
  readonly etaUsec: number;
  readonly tag: string | null;
  /** The payload in standard, padded base64. */
  readonly payloadBase64: string;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const KEYS = ['name', 'etaUsec', 'tag', 'payloadBase64'];

/** A task as an export line. */
export function toExportLine(task: Task): ExportLine {
  return { name: task.name, etaUsec: task.etaUsec, tag: task.tag, payloadBase64: task.payload.toString('base64') };
}

/** An export line as the task to add. */
export function importedTask(line: ExportLine): TaskOptions {
  return { name: line.name, etaUsec: line.etaUsec, tag: line.tag, payload: Buffer.from(line.payloadBase64, 'base64') };
}

/**
 * Checks one parsed line of an export and returns it with its keys in the
 * export's order; anything else is INVALID_REQUEST naming the line, so a
 * batch with a bad line adds nothing.
 */
export function parseExportLine(value: unknown, line: number): ExportLine {
  const fail = (why: string): never => {
    throw new QueueError('INVALID_REQUEST', `line ${line}: ${why}`, { line });
  };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail('expected a JSON object');
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!KEYS.includes(key)) fail(`unknown field "${key.slice(0, 40)}" (expected ${KEYS.join(', ')})`);
  }
  const { name, etaUsec, tag, payloadBase64 } = record;
  if (typeof name !== 'string' || !TASK_NAME_PATTERN.test(name)) fail('name must be a task name (letters, digits, _ and -; 1 to 500)');
  if (typeof etaUsec !== 'number' || !Number.isSafeInteger(etaUsec) || etaUsec < 0) fail('etaUsec must be microseconds since the epoch');
  if (tag !== undefined && tag !== null && typeof tag !== 'string') fail('tag must be a string or null');
  if (typeof payloadBase64 !== 'string' || !BASE64.test(payloadBase64) || payloadBase64.length % 4 !== 0) {
    fail('payloadBase64 must be standard, padded base64');
  }
  return { name: name as string, etaUsec: etaUsec as number, tag: (tag as string | null | undefined) ?? null, payloadBase64: payloadBase64 as string };
}
