/**
 * Progress lines of the scale run, with the time: the full run takes an hour
 * or more unattended, and a reader of its log sees where it is and how long
 * each step took.
 */
export function progress(line: string): void {
  console.log(`[scale ${new Date().toISOString().slice(11, 19)}] ${line}`);
}
