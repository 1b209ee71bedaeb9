import { describe, expect, it } from 'vitest';
import { formatTable } from '../../src/cli/format-table.js';
import { printable } from '../../src/cli/printable.js';

describe('what the CLI prints for people', () => {
  it('escapes control characters and bidirectional overrides, and leaves the rest alone', () => {
    expect(printable('\u001b[2Jred\u0007')).toBe('\\x1b[2Jred\\x07');
    expect(printable('a\u202eb\u009bc\u007f')).toBe('a\\u202eb\\x9bc\\x7f');
    expect(printable('tab\there\nnew')).toBe('tab\\x09here\\x0anew');
    expect(printable('café ✓ 任务')).toBe('café ✓ 任务');
  });

  it('tables show tags and names escaped, padded by what is shown', () => {
    const table = formatTable(
      ['NAME', 'TAG'],
      [
        ['t1', '\u001b]0;owned\u0007'],
        ['t2', 'plain'],
      ],
    );
    expect([...table].some((char) => char !== '\n' && char.charCodeAt(0) < 0x20)).toBe(false);
    expect(table).toBe('NAME  TAG\nt1    \\x1b]0;owned\\x07\nt2    plain\n');
  });
});
