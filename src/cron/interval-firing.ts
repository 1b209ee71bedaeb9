import type { IntervalSchedule, MinuteOfDay } from './app-engine-schedule.js';
import { floorToMinute, instantOfLocal, localDateTime } from './zoned-time.js';

const MS_PER_MINUTE = 60_000;

/**
 * The next firing of an `every N minutes|hours` schedule strictly after
 * `after` (epoch ms), as App Engine computes it:
 *
 * - without a window, N after `after`, on the minute: `after` is the
 *   previous firing, and the gap between firings is the interval;
 * - with a window (`from 10:00 to 14:00`, or `synchronized`: 00:00 to
 *   23:59), on the grid of the window's start that day, N apart in real
 *   elapsed time, up to the window's end included; then the next day's
 *   start. A window may cross midnight (`from 22:00 to 02:00`).
 *
 * Window ends are local times in `timeZone`, placed with the daylight-saving
 * rules of instantOfLocal.
 */
export function nextIntervalFiring(schedule: IntervalSchedule, after: number, timeZone: string): number {
  const step = schedule.minutes * MS_PER_MINUTE;
  if (schedule.window === null) return floorToMinute(after + step);
  const { start, end } = schedule.window;
  const windowStart = latestAtOrBefore(after, start, timeZone);
  const nextStart = earliestAfter(after, start, timeZone);
  if (inWindow(after, start, end, timeZone)) {
    const candidate = windowStart + (Math.floor((after - windowStart) / step) + 1) * step;
    if (candidate < nextStart && inWindow(candidate, start, end, timeZone)) return candidate;
  }
  return nextStart;
}

/**
 * True when `instant` lies within the window that began at the latest
 * start: a start has come since the last end, or this is the end itself.
 */
function inWindow(instant: number, start: MinuteOfDay, end: MinuteOfDay, timeZone: string): boolean {
  const lastStart = latestAtOrBefore(instant, start, timeZone);
  const lastEnd = latestAtOrBefore(instant, end, timeZone);
  return lastStart > lastEnd || instant === lastEnd;
}

/** The latest instant at or before `instant` that is `minuteOfDay` local time on some day. */
function latestAtOrBefore(instant: number, minuteOfDay: MinuteOfDay, timeZone: string): number {
  for (let days = 1; ; days -= 1) {
    const candidate = onLocalDay(instant, days, minuteOfDay, timeZone);
    if (candidate <= instant) return candidate;
  }
}

/** The earliest instant after `instant` that is `minuteOfDay` local time on some day. */
function earliestAfter(instant: number, minuteOfDay: MinuteOfDay, timeZone: string): number {
  for (let days = -1; ; days += 1) {
    const candidate = onLocalDay(instant, days, minuteOfDay, timeZone);
    if (candidate > instant) return candidate;
  }
}

/**
 * `minuteOfDay` on the local date `days` after that of `instant`. Dates are
 * stepped on the calendar, not by 24 hours, which a 23- or 25-hour day
 * would throw off.
 */
function onLocalDay(instant: number, days: number, minuteOfDay: MinuteOfDay, timeZone: string): number {
  const local = localDateTime(instant, timeZone);
  const date = new Date(Date.UTC(2000, 0, 1));
  date.setUTCFullYear(local.year, local.month - 1, local.day + days);
  const hour = Math.floor(minuteOfDay / 60);
  return instantOfLocal(
    date.getUTCFullYear(),
    date.getUTCMonth() + 1,
    date.getUTCDate(),
    hour,
    minuteOfDay % 60,
    timeZone,
  );
}
