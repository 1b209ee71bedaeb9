import { formatAge } from './relative-time.js';

/**
 * How long something has waited ("5m 3s"), from the moment it started: the
 * client script keeps the text current from `data-since` (epoch ms), so a
 * page whose figures did not change stays the same page (its ETag, a 304)
 * while the ages on it grow.
 */
export function Age(props: { readonly seconds: number | null; readonly nowMs: number }) {
  if (props.seconds === null) return <>-</>;
  const since = Math.round((props.nowMs - props.seconds * 1000) / 1000) * 1000;
  return (
    <span class="age" data-since={String(since)}>
      {formatAge(props.seconds)}
    </span>
  );
}
