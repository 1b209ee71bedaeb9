import { tokenize, type Token, type TokenKind } from './schedule-lexer.js';
import { ScheduleError } from './schedule-error.js';

/** Minutes since local midnight, 0-1439. */
export type MinuteOfDay = number;

/**
 * `every N minutes|hours`, optionally within a daily window or synchronized
 * (a window from 00:00 to 23:59). Without either, each firing comes N after
 * the previous one; with one, the firings are N apart from the window's start.
 */
export interface IntervalSchedule {
  readonly kind: 'interval';
  /** The interval in minutes. */
  readonly minutes: number;
  readonly synchronized: boolean;
  /** The daily window, local time, both ends included; null when neither `from` nor `synchronized` was given. */
  readonly window: { readonly start: MinuteOfDay; readonly end: MinuteOfDay } | null;
}

/**
 * A time of day on chosen days: `every mon,fri 09:00`, `2nd wed of month
 * 00:00`, `1,15 of jan,jul 09:30`. Days are either days of the month
 * (`monthDays`) or weekdays with ordinals (the 1st to 5th such weekday of
 * the month); `every` stands for all five ordinals.
 */
export interface SpecificTimeSchedule {
  readonly kind: 'specific';
  readonly time: MinuteOfDay;
  /** 1-12, sorted. */
  readonly months: readonly number[];
  /** 1-31, sorted; empty when weekdays are used. */
  readonly monthDays: readonly number[];
  /** 1-5, sorted; empty when month days are used. */
  readonly ordinals: readonly number[];
  /** 0-6, Sunday 0, sorted; empty when month days are used. */
  readonly weekdays: readonly number[];
}

export type AppEngineSchedule = IntervalSchedule | SpecificTimeSchedule;

const ALL_MONTHS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
const ALL_ORDINALS = [1, 2, 3, 4, 5];
const ALL_WEEKDAYS = [0, 1, 2, 3, 4, 5, 6];
const MINUTES_PER_DAY = 1440;
/** Days in each month of a leap year: App Engine refuses a day of the month that no chosen month has. */
const LONGEST_MONTHS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const DESCRIBE: Readonly<Record<TokenKind, string>> = {
  every: '"every"',
  number: 'a number',
  time: 'a time (HH:MM)',
  ordinal: 'an ordinal (1st-5th, first-fifth)',
  weekday: 'a weekday',
  day: '"day"',
  'month-name': 'a month name',
  month: '"month"',
  quarter: '"quarter"',
  of: '"of"',
  from: '"from"',
  to: '"to"',
  comma: '","',
  hours: '"hours"',
  minutes: '"minutes" or "mins"',
  synchronized: '"synchronized"',
  unknown: 'unknown',
  end: 'the end',
};

/**
 * Parses App Engine's schedule grammar (the SDK's Groc.g), all of it:
 *
 *   schedule  = interval | specific
 *   interval  = "every" N ("minutes"|"mins"|"hours") [ "from" TIME "to" TIME | "synchronized" ]
 *   specific  = ( ordinals weekdays | monthdays ) "of" monthspec TIME
 *             | ordinals weekdays TIME
 *   ordinals  = "every" | ordinal {"," ordinal}
 *   weekdays  = "day" | weekday {"," weekday}
 *   monthdays = N {"," N}
 *   monthspec = "month" | month {"," month} | "quarter" | qordinal {"," qordinal} "month" "of" "quarter"
 *
 * with App Engine's checks (interval at least 1; synchronized only when the
 * interval divides 24 hours; days of the month 1-31 fitting a chosen month).
 * `2nd day` means the 2nd of the month. Throws ScheduleError with the
 * offset where parsing stopped.
 */
export function parseAppEngineSchedule(schedule: string): AppEngineSchedule {
  return new Parser(schedule).schedule();
}

class Parser {
  private readonly tokens: Token[];
  private index = 0;

  constructor(private readonly text: string) {
    this.tokens = tokenize(text);
  }

  schedule(): AppEngineSchedule {
    const first = this.peek();
    const second = this.tokens[this.index + 1];
    if (first.kind === 'every' && second?.kind === 'unknown' && /^[0-9]+$/.test(second.text)) {
      this.fail(second, 'an interval has at most five digits');
    }
    const result = first.kind === 'every' && second?.kind === 'number' ? this.interval() : this.specific();
    this.expect('end');
    return result;
  }

  private interval(): IntervalSchedule {
    this.expect('every');
    const count = this.expect('number');
    if (count.value < 1) this.fail(count, 'the interval must be at least 1');
    const unit = this.expect('minutes', 'hours');
    const minutes = unit.kind === 'hours' ? count.value * 60 : count.value;
    const next = this.peek();
    if (next.kind === 'synchronized') {
      this.index += 1;
      if (minutes > MINUTES_PER_DAY || MINUTES_PER_DAY % minutes !== 0) {
        this.fail(
          next,
          `"synchronized" needs an interval that divides 24 hours evenly, and ${count.text} ${unit.text} does not`,
        );
      }
      return { kind: 'interval', minutes, synchronized: true, window: { start: 0, end: MINUTES_PER_DAY - 1 } };
    }
    if (next.kind === 'from') {
      this.index += 1;
      const start = this.expect('time').value;
      this.expect('to');
      const end = this.expect('time').value;
      return { kind: 'interval', minutes, synchronized: false, window: { start, end } };
    }
    this.expectOneOf(next, ['from', 'synchronized', 'end']);
    return { kind: 'interval', minutes, synchronized: false, window: null };
  }

  private specific(): SpecificTimeSchedule {
    const first = this.peek();
    let monthDays: number[] = [];
    let ordinals: number[] = [];
    let weekdays: number[] = [];
    const monthDayTokens: Token[] = [];
    if (first.kind === 'number') {
      for (const token of this.list('number')) {
        if (token.value < 1 || token.value > 31) this.fail(token, 'a day of the month must be from 1 to 31');
        monthDays.push(token.value);
        monthDayTokens.push(token);
      }
    } else {
      ordinals = this.ordinals();
      const day = this.peek();
      if (day.kind === 'day') {
        this.index += 1;
        // `every day` is every day; `1st,3rd day` is the 1st and 3rd of the month.
        if (ordinals.length === ALL_ORDINALS.length && first.kind === 'every') weekdays = [...ALL_WEEKDAYS];
        else [monthDays, ordinals] = [ordinals, []];
      } else {
        this.expectOneOf(day, ['weekday', 'day']);
        weekdays = this.list('weekday').map((token) => token.value);
      }
    }
    let months = ALL_MONTHS;
    // Days of the month need their months (`1,15 of jan`); weekdays may omit them (`every mon 09:00`).
    if (monthDayTokens.length > 0 || this.peek().kind === 'of') {
      this.expect('of');
      months = this.monthSpec();
    } else {
      this.expectOneOf(this.peek(), ['of', 'time']);
    }
    this.checkMonthDays(monthDays, months, monthDayTokens);
    const time = this.expect('time').value;
    return {
      kind: 'specific',
      time,
      months: sortedUnique(months),
      monthDays: sortedUnique(monthDays),
      ordinals: sortedUnique(ordinals),
      weekdays: sortedUnique(weekdays),
    };
  }

  private ordinals(): number[] {
    const token = this.peek();
    if (token.kind === 'every') {
      this.index += 1;
      return [...ALL_ORDINALS];
    }
    this.expectOneOf(token, ['every', 'ordinal', 'number']);
    return this.list('ordinal').map((t) => t.value);
  }

  private monthSpec(): number[] {
    const token = this.peek();
    if (token.kind === 'month') {
      this.index += 1;
      return [...ALL_MONTHS];
    }
    if (token.kind === 'quarter') {
      this.index += 1;
      return [1, 4, 7, 10];
    }
    if (token.kind === 'ordinal') {
      const offsets = this.list('ordinal').map((t) => {
        if (t.value > 3) this.fail(t, 'a quarter has three months: use 1st, 2nd or 3rd');
        return t.value - 1;
      });
      this.expect('month');
      this.expect('of');
      this.expect('quarter');
      return offsets.flatMap((offset) => [1, 4, 7, 10].map((month) => month + offset));
    }
    this.expectOneOf(token, ['month', 'month-name', 'quarter', 'ordinal']);
    return this.list('month-name').map((t) => t.value);
  }

  /** App Engine refuses days of the month when even the smallest fits none of the chosen months. */
  private checkMonthDays(days: readonly number[], months: readonly number[], tokens: readonly Token[]): void {
    if (days.length === 0) return;
    const smallest = Math.min(...days);
    if (months.some((month) => smallest <= LONGEST_MONTHS[month - 1]!)) return;
    const token = tokens.find((t) => t.value === smallest) ?? this.peek();
    this.fail(token, `day ${smallest} falls in none of the chosen months`);
  }

  /** One or more tokens of the given kinds, separated by commas. */
  private list(...kinds: TokenKind[]): Token[] {
    const items = [this.expect(...kinds)];
    while (this.peek().kind === 'comma') {
      this.index += 1;
      items.push(this.expect(...kinds));
    }
    return items;
  }

  private peek(): Token {
    return this.tokens[this.index]!;
  }

  private expect(...kinds: TokenKind[]): Token {
    const token = this.peek();
    this.expectOneOf(token, kinds);
    this.index += 1;
    return token;
  }

  private expectOneOf(token: Token, kinds: readonly TokenKind[]): void {
    if (kinds.includes(token.kind)) return;
    const wanted = kinds.map((kind) => DESCRIBE[kind]);
    const list =
      wanted.length === 1 ? wanted[0]! : `${wanted.slice(0, -1).join(', ')} or ${wanted[wanted.length - 1]!}`;
    this.fail(token, `expected ${list}`);
  }

  private fail(token: Token, message: string): never {
    throw new ScheduleError(this.text, token.offset, token.kind === 'end' ? '' : token.text, message);
  }
}

function sortedUnique(values: readonly number[]): number[] {
  return [...new Set(values)].sort((a, b) => a - b);
}
