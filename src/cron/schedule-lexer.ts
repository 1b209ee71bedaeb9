/**
 * Tokens of App Engine's schedule language ("groc"). Words are matched as
 * the SDK's lexer matches them: the longest keyword at each position, in
 * full or short form (`mon`/`monday`, `sep`/`september`, `1st`/`first`),
 * with or without spaces between tokens. Case does not matter. Anything
 * else becomes an `unknown` token, so that the parser can say where it
 * stopped and what it expected there.
 */

export type TokenKind =
  | 'every'
  | 'number'
  | 'time'
  | 'ordinal'
  | 'weekday'
  | 'day'
  | 'month-name'
  | 'month'
  | 'quarter'
  | 'of'
  | 'from'
  | 'to'
  | 'comma'
  | 'hours'
  | 'minutes'
  | 'synchronized'
  | 'unknown'
  | 'end';

export interface Token {
  readonly kind: TokenKind;
  /** The text as written. */
  readonly text: string;
  /** 0-based offset in the schedule. */
  readonly offset: number;
  /** The number it stands for: 1-5 for ordinals, 0-6 (Sunday 0) for weekdays, 1-12 for months, the value of numbers, minutes of the day for times. */
  readonly value: number;
}

const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const WEEKDAY_SUFFIXES = ['day', 'day', 'sday', 'nesday', 'rsday', 'day', 'urday'];
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH_SUFFIXES = ['uary', 'ruary', 'ch', 'il', '', 'e', 'y', 'ust', 'tember', 'ober', 'ember', 'ember'];

/** Every keyword spelling, with its kind and value. */
const KEYWORDS: ReadonlyArray<readonly [string, TokenKind, number]> = [
  ['every', 'every', 0],
  ['synchronized', 'synchronized', 0],
  ['first', 'ordinal', 1],
  ['1st', 'ordinal', 1],
  ['second', 'ordinal', 2],
  ['2nd', 'ordinal', 2],
  ['third', 'ordinal', 3],
  ['3rd', 'ordinal', 3],
  ['fourth', 'ordinal', 4],
  ['4th', 'ordinal', 4],
  ['fifth', 'ordinal', 5],
  ['5th', 'ordinal', 5],
  ['day', 'day', 0],
  ['month', 'month', 0],
  ['quarter', 'quarter', 0],
  ['of', 'of', 0],
  ['from', 'from', 0],
  ['to', 'to', 0],
  ['hours', 'hours', 0],
  ['mins', 'minutes', 0],
  ['minutes', 'minutes', 0],
  ...WEEKDAYS.flatMap((short, index) => [
    [short, 'weekday', index] as const,
    [short + WEEKDAY_SUFFIXES[index]!, 'weekday', index] as const,
  ]),
  ...MONTHS.flatMap((short, index) =>
    [short, short + MONTH_SUFFIXES[index]!]
      .filter((spelling, i, all) => all.indexOf(spelling) === i)
      .map((spelling) => [spelling, 'month-name', index + 1] as const),
  ),
];

/** `H:MM` or `HH:MM`, hours 0-23 (the SDK's TIME and TWO_DIGIT_HOUR_TIME). */
const TIME = /^(?:[01]?[0-9]|2[0-3]):[0-5][0-9]/;
/** The SDK's numbers have at most five digits. */
const MAX_DIGITS = 5;

/** Splits a schedule into tokens; always ends with an `end` token. */
export function tokenize(schedule: string): Token[] {
  const lower = schedule.toLowerCase();
  const tokens: Token[] = [];
  let at = 0;
  while (at < lower.length) {
    const char = lower[at]!;
    if (/\s/.test(char)) {
      at += 1;
      continue;
    }
    const token = readToken(lower, schedule, at);
    tokens.push(token);
    at += token.text.length;
  }
  tokens.push({ kind: 'end', text: '', offset: schedule.length, value: 0 });
  return tokens;
}

function readToken(lower: string, original: string, at: number): Token {
  const rest = lower.slice(at);
  if (rest[0] === ',') return { kind: 'comma', text: ',', offset: at, value: 0 };
  const time = TIME.exec(rest);
  // `10:00` is a time, but so would be the `0:00` inside `100:00`: a time may not follow a digit.
  if (time !== null && !/[0-9]/.test(lower[at - 1] ?? '')) {
    const [hours, minutes] = time[0].split(':').map(Number) as [number, number];
    return { kind: 'time', text: original.slice(at, at + time[0].length), offset: at, value: hours * 60 + minutes };
  }
  let best: readonly [string, TokenKind, number] | undefined;
  for (const keyword of KEYWORDS) {
    if (rest.startsWith(keyword[0]) && (best === undefined || keyword[0].length > best[0].length)) best = keyword;
  }
  if (best !== undefined)
    return { kind: best[1], text: original.slice(at, at + best[0].length), offset: at, value: best[2] };
  const digits = /^[0-9]+/.exec(rest);
  if (digits !== null && digits[0].length <= MAX_DIGITS && rest[digits[0].length] !== ':') {
    return { kind: 'number', text: digits[0], offset: at, value: Number(digits[0]) };
  }
  // Unknown: the rest of the word, so that a message quotes `minuets`, not `m`.
  const word = /^[^\s,]+/.exec(rest)?.[0] ?? rest[0]!;
  return { kind: 'unknown', text: original.slice(at, at + word.length), offset: at, value: 0 };
}
