import type { CliOutput } from './cli-io.js';

/**
 * A one-line progress bar redrawn in place on stderr, only when stderr is a
 * terminal: piped or redirected runs (scripts, CI logs) get no escape codes
 * and no noise. Redraws at most ten times a second.
 */
export class ProgressBar {
  readonly #out: CliOutput | null;
  readonly #label: string;
  #total: number | null;
  #lastDraw = 0;

  constructor(err: CliOutput, label: string, total: number | null) {
    this.#out = err.isTTY === true ? err : null;
    this.#label = label;
    this.#total = total;
  }

  /** Redraws with `done` of the total (a count, or bytes when the total is a file size). */
  update(done: number, detail = '', force = false): void {
    if (this.#out === null) return;
    const now = Date.now();
    if (!force && now - this.#lastDraw < 100) return;
    this.#lastDraw = now;
    let bar = '';
    if (this.#total !== null && this.#total > 0) {
      const share = Math.min(1, done / this.#total);
      const filled = Math.round(share * 30);
      bar = `[${'#'.repeat(filled)}${'.'.repeat(30 - filled)}] ${String(Math.floor(share * 100)).padStart(3)}% `;
    }
    this.#out.write(`\r\x1b[2K${this.#label} ${bar}${detail}`);
  }

  /** Clears the line (the command prints its own summary). */
  finish(): void {
    this.#out?.write('\r\x1b[2K');
  }
}
