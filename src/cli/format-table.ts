import { printable } from './printable.js';

/**
 * Rows as a plain text table: a header, then columns padded to their widest
 * cell; numbers right-aligned. Cells hold what tasks carry (tags, names),
 * so control characters are shown escaped, never sent to the terminal. For
 * people; scripts use --json.
 */
export function formatTable(headers: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = [headers, ...rows.map((row) => row.map((cell) => printable(String(cell))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  const numeric = headers.map((_, i) => rows.length > 0 && rows.every((row) => typeof row[i] === 'number'));
  return cells
    .map((row) =>
      row
        .map((cell, i) => (numeric[i] ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join('');
}
