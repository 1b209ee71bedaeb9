import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  GENERATED_NAME_LENGTH,
  generateTaskName,
  generatedNameTime,
  isHeldByForm,
} from '../../src/core/generated-name.js';
import { TASK_NAME_PATTERN } from '../../src/core/task.js';

const DAY_MS = 24 * 3600 * 1000;

/** A UUIDv7 (RFC 9562) made here, in 22 base64url characters: what a client might choose as a name. */
function uuidV7Name(ms: number): string {
  const bytes = Buffer.from(randomUUID().replaceAll('-', ''), 'hex');
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return bytes.toString('base64url');
}

/** The name with one character replaced by another of the alphabet. */
function withCharacter(name: string, at: number): string {
  const replacement = name[at] === 'A' ? 'B' : 'A';
  return name.slice(0, at) + replacement + name.slice(at + 1);
}

describe('generated task names', () => {
  it('carry their creation time and pass their own check', () => {
    const now = Date.now();
    for (const ms of [0, 1, now, now - 8 * DAY_MS, now + 5000, 2 ** 48 - 1]) {
      const name = generateTaskName(ms);
      expect(name).toHaveLength(GENERATED_NAME_LENGTH);
      expect(name).toMatch(TASK_NAME_PATTERN);
      expect(generatedNameTime(name)).toBe(ms);
    }
    const names = new Set(Array.from({ length: 5000 }, () => generateTaskName(now)));
    expect(names.size).toBe(5000);
    // Names of one moment share their first 8 characters (the 6 bytes of time), so they sit together in the index.
    expect(generateTaskName(now).slice(0, 8)).toBe(generateTaskName(now).slice(0, 8));
  });

  it('lose the form when any character changes', () => {
    const name = generateTaskName();
    for (let at = 0; at < name.length; at++) {
      expect(generatedNameTime(withCharacter(name, at)), `character ${at}`).toBeNull();
    }
  });

  it('are told apart from names of other forms', () => {
    const now = Date.now();
    // The form before this one: 6 bytes of time, 10 random, 22 characters.
    const old = Buffer.alloc(16);
    old.writeUIntBE(now, 0, 6);
    old.fill(7, 6);
    expect(generatedNameTime(old.toString('base64url'))).toBeNull();
    expect(generatedNameTime(uuidV7Name(now))).toBeNull();
    expect(generatedNameTime('x'.repeat(24))).toBeNull();
    expect(generatedNameTime('my-task')).toBeNull();
    expect(generatedNameTime('')).toBeNull();
    // Characters outside base64url, which Buffer's decoder would quietly accept.
    const name = generateTaskName(now);
    expect(generatedNameTime(`${name.slice(0, 23)}+`)).toBeNull();
    expect(generatedNameTime(`${name} `)).toBeNull();
    // Random 24-character names almost never pass (1 in 2^32 each).
    let passed = 0;
    for (let i = 0; i < 20_000; i++) {
      if (
        generatedNameTime(Buffer.from(randomUUID().replaceAll('-', '').slice(0, 36), 'hex').toString('base64url')) !==
        null
      )
        passed++;
    }
    expect(passed).toBe(0);
  });

  it('are held by their form for the retention period after they were made, and from a clock ahead', () => {
    const now = Date.now();
    const retention = 7 * DAY_MS;
    expect(isHeldByForm(generateTaskName(now), now, retention)).toBe(true);
    expect(isHeldByForm(generateTaskName(now - retention + 1000), now, retention)).toBe(true);
    expect(isHeldByForm(generateTaskName(now - retention), now, retention)).toBe(false);
    expect(isHeldByForm(generateTaskName(now - 8 * DAY_MS), now, retention)).toBe(false);
    expect(isHeldByForm(generateTaskName(now + 60_000), now, retention)).toBe(true);
    expect(isHeldByForm('my-task', now, retention)).toBe(false);
    expect(isHeldByForm(uuidV7Name(now), now, retention)).toBe(false);
  });
});
