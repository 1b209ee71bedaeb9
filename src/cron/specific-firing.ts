import type { SpecificTimeSchedule } from './app-engine-schedule.js';
import { daysInMonth, instantOfLocal, localDateTime, weekdayOf } from './zoned-time.js';

/** Months searched before giving up: a 400-year Gregorian cycle holds every date a valid schedule can name. */
const MONTHS_SEARCHED = 400 * 12;

/**
 * The next firing of a specific-time schedule strictly after `after`
 * (epoch ms): the first chosen day, from the local date of `after` on, whose
 * time falls after it. A time skipped by a spring-forward fires at the first
 * instant after the gap; a time that happens twice fires once, at the first.
 */
export function nextSpecificFiring(schedule: SpecificTimeSchedule, after: number, timeZone: string): number {
  const local = localDateTime(after, timeZone);
  const hour = Math.floor(schedule.time / 60);
  const minute = schedule.time % 60;
  let { year, month } = local;
  for (let searched = 0; searched < MONTHS_SEARCHED; searched += 1) {
    if (schedule.months.includes(month)) {
      // Days before the local date of `after` fire before it; the day before is kept for zones whose date can go back an hour later.
      const from = searched === 0 ? local.day - 1 : 1;
      for (const day of matchingDays(schedule, year, month).filter((d) => d >= from)) {
        const firing = instantOfLocal(year, month, day, hour, minute, timeZone);
        if (firing > after) return firing;
      }
    }
    month += 1;
    if (month > 12) [year, month] = [year + 1, 1];
  }
  throw new Error(`no firing within 400 years after ${new Date(after).toISOString()}`);
}

/** Days of a month that the schedule names, ascending. */
function matchingDays(schedule: SpecificTimeSchedule, year: number, month: number): number[] {
  const lastDay = daysInMonth(year, month);
  if (schedule.monthDays.length > 0) return schedule.monthDays.filter((day) => day <= lastDay);
  const firstWeekday = weekdayOf(year, month, 1);
  const days: number[] = [];
  for (const ordinal of schedule.ordinals) {
    for (const weekday of schedule.weekdays) {
      const day = ((weekday - firstWeekday + 7) % 7) + 1 + 7 * (ordinal - 1);
      if (day <= lastDay) days.push(day);
    }
  }
  return days.sort((a, b) => a - b);
}
