import { TASK_NAME_PATTERN } from '../core/task.js';
import type { ExportLine } from './operator-client.js';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Checks one line of an export (taskqueue export, or a file written to look
 * like one) and returns it with its keys in the export's order. Anything
 * else is an error naming the line, before any task of its batch is added.
 */
export function parseExportLine(value: unknown, line: number): ExportLine {
  const fail = (why: string): never => {
    throw new Error(`line ${line}: ${why}`);
  };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail('expected a JSON object');
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!['name', 'etaUsec', 'tag', 'payloadBase64'].includes(key)) fail(`unknown field "${key}" (expected name, etaUsec, tag, payloadBase64)`);
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
