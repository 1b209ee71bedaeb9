import { formatRelative, formatUsec } from './format.js';

/**
 * A moment as the console shows it: relative ("in 4 min", "3 min ago") with
 * the absolute time on hover, or absolute (`absolute`) with the relative
 * time on hover. The server writes UTC; the client script rewrites both in
 * the time zone the viewer chose (UTC or local) and keeps relative times
 * current. `nowMs` is when the page was made.
 */
export function When(props: { readonly usec: number; readonly nowMs: number; readonly absolute?: boolean }) {
  const ms = Math.floor(props.usec / 1000);
  const absolute = formatUsec(props.usec);
  const relative = formatRelative(ms - props.nowMs);
  return (
    <time
      datetime={new Date(ms).toISOString()}
      data-at={String(ms)}
      data-show={props.absolute ? 'absolute' : 'relative'}
      title={props.absolute ? relative : absolute}
    >
      {props.absolute ? absolute : relative}
    </time>
  );
}
