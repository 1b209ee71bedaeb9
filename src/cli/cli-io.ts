import type { Environment } from '../config/service-settings.js';

/** A stream the CLI writes to; `isTTY` decides on colours-free tables and progress bars. */
export interface CliOutput {
  write(chunk: string | Uint8Array): boolean;
  readonly isTTY?: boolean;
  /** Node streams have it: big outputs wait for 'drain' instead of piling up in memory. */
  once?(event: 'drain', listener: () => void): unknown;
}

/** Writes, and when the stream's buffer is full, waits until it drains. */
export async function writeDrained(out: CliOutput, text: string): Promise<void> {
  if (!out.write(text) && out.once) await new Promise<void>((done) => out.once?.('drain', done));
}

/**
 * Where a CLI run reads and writes, and its environment: the real process
 * streams from main.ts, in-memory ones in tests. Nothing in src/cli reads
 * process.env or writes to process.stdout on its own.
 */
export interface CliIo {
  readonly env: Environment;
  readonly out: CliOutput;
  readonly err: CliOutput;
  /** Payloads and imports read from here when no file is named. */
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean };
}
