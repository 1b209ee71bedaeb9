import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseStorageSize } from '../../src/config/parse-storage-size.js';
import { catchConfigError } from './catch-config-error.js';

const KiB = 1024;
const MiB = 1024 ** 2;
const GiB = 1024 ** 3;
const TiB = 1024 ** 4;

describe('parseStorageSize', () => {
  it.each([
    ['0', 0],
    ['1', 1],
    ['123', 123],
    ['123B', 123],
    ['1K', KiB],
    ['120M', 120 * MiB],
    ['2G', 2 * GiB],
    ['1T', TiB],
    ['1.5K', 1536],
    ['0.5M', MiB / 2],
    ['1.5G', 1.5 * GiB],
    ['1.', 1],
    ['1.0T', TiB],
    ['007M', 7 * MiB],
    ['1.9', 1], // fractions of a byte are truncated, as App Engine's int() does
    ['0.1K', 102],
    ['8191T', 8191 * TiB],
  ])('parses %j as %d bytes', (text, bytes) => {
    expect(parseStorageSize(text)).toBe(bytes);
  });

  it.each([
    [''],
    ['M'],
    ['abc'],
    ['120MB'],
    ['120m'],
    ['120 M'],
    [' 120M'],
    ['120M '],
    ['-1K'],
    ['+1K'],
    ['.5K'],
    ['1e3'],
    ['1P'],
    ['1,5K'],
    ['0x10'],
  ])('rejects %j', (text) => {
    const error = catchConfigError(() => parseStorageSize(text));
    expect(error.message).toBe(
      `must be a size such as "120M" (a number with an optional B, K, M, G or T suffix), got "${text}"`,
    );
  });

  it('rejects sizes beyond the safe-integer range', () => {
    const error = catchConfigError(() => parseStorageSize('9000T'));
    expect(error.message).toBe(`must be at most ${Number.MAX_SAFE_INTEGER} bytes, got "9000T"`);
  });

  it('multiplies whole numbers by the unit exactly', () => {
    const units: [string, number][] = [
      ['', 1],
      ['B', 1],
      ['K', KiB],
      ['M', MiB],
      ['G', GiB],
      ['T', TiB],
    ];
    fc.assert(
      fc.property(fc.nat({ max: 8000 }), fc.constantFrom(...units), (count, [suffix, factor]) => {
        expect(parseStorageSize(`${count}${suffix}`)).toBe(count * factor);
      }),
    );
  });
});
