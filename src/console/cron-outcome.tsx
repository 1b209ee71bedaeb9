import type { CronFiringEntry } from '../core/cron/cron-history.js';

const WORDS: Record<CronFiringEntry['outcome'], string> = {
  pending: 'waiting',
  retrying: 'failing, retrying',
  delivered: 'delivered',
  failed: 'failed',
};

const BADGE: Record<CronFiringEntry['outcome'], string> = {
  pending: 'state-delayed',
  retrying: 'dead',
  delivered: 'running',
  failed: 'dead',
};

/**
 * How one firing went, as a badge a failure cannot be mistaken in:
 * "failed" and "delivery failed 3 times, last HTTP 502" in the failure
 * colour, "delivered" in the healthy one.
 */
export function CronOutcome(props: { readonly entry: CronFiringEntry }) {
  const { entry } = props;
  const attempts = `${entry.attempts} time${entry.attempts === 1 ? '' : 's'}`;
  const detail =
    entry.outcome === 'failed' || entry.outcome === 'retrying'
      ? `delivery failed ${attempts}${entry.lastError === null ? '' : `, last ${entry.lastError}`}`
      : null;
  return (
    <>
      <span class={`badge ${BADGE[entry.outcome]}`} data-firing-outcome={entry.outcome}>
        {WORDS[entry.outcome]}
      </span>
      {detail !== null && <span class="last-error"> {detail}</span>}
    </>
  );
}
