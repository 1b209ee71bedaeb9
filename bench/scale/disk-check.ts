import { existsSync, statfsSync } from 'node:fs';
import pg from 'pg';
import { progress } from './progress.js';
import type { ScaleOptions } from './scale-options.js';

/**
 * Bytes on disk per row of each count curve, from the small-point run
 * (docs/performance.md, "Scale curves"): a waiting task is about 281 bytes
 * (heap, primary key, lease index), a held name 157, a dead letter and an
 * audit entry together about 400.
 */
const BYTES_PER_ROW = { waiting: 281, held: 157, pages: 400, search: 380 } as const;
/** Each point is a fresh schema dropped after it, so the peak is the largest point; WAL and vacuum need room beside it. */
const HEADROOM = 1.5;
const WAL_BYTES = 2 * 1024 ** 3;

const gb = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GB`;

/** The disk the largest point of the chosen curves needs at its peak. */
export function diskNeeded(options: ScaleOptions): number {
  const largest = (points: readonly number[]) => Math.max(0, ...points);
  const peak = Math.max(
    options.curves.includes('waiting') ? largest(options.waiting) * BYTES_PER_ROW.waiting : 0,
    options.curves.includes('held') ? largest(options.held) * BYTES_PER_ROW.held : 0,
    options.curves.includes('pages') ? largest(options.pages) * BYTES_PER_ROW.pages : 0,
    // A searchable task carries a tag (and the tag index) besides a waiting task's bytes.
    options.curves.includes('search') ? largest(options.search) * BYTES_PER_ROW.search : 0,
  );
  return peak * HEADROOM + WAL_BYTES;
}

/**
 * Says how much disk the run needs and, when the server's data directory is
 * on this machine, how much is free; stops before filling anything when it
 * is too little (`--skip-disk-check` goes on anyway). A run that fills the
 * disk half way would stop PostgreSQL for every other user of it.
 */
export async function checkDisk(url: string, options: ScaleOptions, skip: boolean): Promise<void> {
  const needed = diskNeeded(options);
  let free: number | null = null;
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    const dir = (await client.query<{ dir: string }>(`select current_setting('data_directory') as dir`)).rows[0]?.dir;
    if (dir !== undefined && existsSync(dir)) {
      const stats = statfsSync(dir);
      free = stats.bavail * stats.bsize;
    }
  } catch {
    // Not a superuser, or the server is elsewhere: the need is still printed.
  } finally {
    await client.end().catch(() => {});
  }
  progress(
    `disk: the largest point needs about ${gb(needed)}; ${free === null ? "free space at the server unknown (not this machine's data directory)" : `${gb(free)} free in the data directory`}`,
  );
  if (free !== null && free < needed && !skip) {
    throw new Error(
      `not enough free disk for these points: ${gb(free)} free, about ${gb(needed)} needed (choose smaller points, or --skip-disk-check)`,
    );
  }
}
