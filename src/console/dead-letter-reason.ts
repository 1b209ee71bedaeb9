import type { DeadLetter } from '../core/dead-letter.js';
import type { QueueOverview } from '../core/queue-overview.js';

/**
 * Why a task died, in its queue's words: a pull task was leased and never
 * deleted; a push task's deliveries failed (its retry count is its
 * delivery attempts), the last with the error it ended on.
 */
export function deathReason(mode: QueueOverview['mode'], letter: Pick<DeadLetter, 'retryCount' | 'lastError'>): string {
  const count = letter.retryCount;
  const times = count === 1 ? 'time' : 'times';
  if (mode === 'push') {
    const last = letter.lastError === null ? '' : `, last ${shortened(letter.lastError)}`;
    return `delivery failed ${count} ${times}${last}`;
  }
  return `retry limit: leased ${count} ${times}, never deleted`;
}

/** The head of an error (its status, not the response body the details show). */
function shortened(error: string): string {
  return error.length <= 60 ? error : `${error.slice(0, 60)}…`;
}
