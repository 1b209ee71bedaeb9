import { QueueError } from '../core/errors.js';
import { DEFAULT_TRIAGE_THRESHOLDS, type TriageThresholds } from '../core/triage-thresholds.js';

/** The names TASKQUEUE_CONSOLE_TRIAGE takes, each to its threshold and whether it is a duration. */
const KEYS: Readonly<Record<string, { readonly field: keyof TriageThresholds; readonly duration: boolean }>> = {
  'push-failing': { field: 'pushFailingSeconds', duration: true },
  backlog: { field: 'backlogTasks', duration: false },
  'backlog-growth': { field: 'backlogGrowthTasks', duration: false },
  'backlog-window': { field: 'backlogWindowSeconds', duration: true },
  'dead-letters': { field: 'deadLetterSeconds', duration: true },
  stalled: { field: 'stalledSeconds', duration: true },
};

const UNIT_SECONDS: Readonly<Record<string, number>> = { '': 1, s: 1, m: 60, h: 3600, d: 86400 };

/**
 * TASKQUEUE_CONSOLE_TRIAGE: `name=value` pairs separated by commas, each
 * changing one threshold of the console's triage and leaving the others at
 * their defaults, e.g. `push-failing=10m,backlog=50000,dead-letters=30m`.
 * Durations take s, m, h or d (bare numbers are seconds). A name or value it does not know stops the server: a
 * misspelt threshold silently left at its default would hide what it was
 * meant to show.
 */
export function triageSetting(value: string | undefined): TriageThresholds {
  if (value === undefined) return DEFAULT_TRIAGE_THRESHOLDS;
  const name = 'TASKQUEUE_CONSOLE_TRIAGE';
  const thresholds: Record<keyof TriageThresholds, number> = { ...DEFAULT_TRIAGE_THRESHOLDS };
  for (const pair of value
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const [key = '', text = ''] = pair.split('=').map((part) => part.trim());
    const known = KEYS[key];
    const match = /^(\d+(?:\.\d+)?)\s*([smhd]?)$/.exec(text);
    const unit = match?.[2] ?? '';
    const fits = known !== undefined && match !== null && (known.duration || unit === '');
    if (!fits || known === undefined || match === null) {
      throw new QueueError(
        'INVALID_CONFIG',
        `${name} must be name=value pairs separated by commas (${Object.keys(KEYS).join(', ')}; durations in s, m, h or d), got "${pair}"`,
        { field: name },
      );
    }
    const number = Number(match[1]) * (known.duration ? (UNIT_SECONDS[unit] ?? 1) : 1);
    if (!(number > 0) || !Number.isSafeInteger(Math.round(number))) {
      throw new QueueError('INVALID_CONFIG', `${name}: ${key} must be more than 0, got "${text}"`, { field: name });
    }
    thresholds[known.field] = number;
  }
  return thresholds;
}

/** The thresholds as TASKQUEUE_CONSOLE_TRIAGE writes them (the console shows them so). */
export function triageText(t: TriageThresholds): string {
  return Object.entries(KEYS)
    .map(([key, { field, duration }]) => `${key}=${t[field]}${duration ? 's' : ''}`)
    .join(',');
}
