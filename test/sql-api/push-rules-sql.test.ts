import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DOUBLE_DOT_SEGMENT,
  HEADER_NAME,
  HEADER_VALUE,
  MAYBE_DOUBLE_DOT,
  PATH_SEPARATOR,
  SINGLE_DOT_SEGMENT,
  URL_PATH,
} from '../../src/core/push/push-rules.js';
import { ENGINES, testPGlite, testPgUrl, type TestEngine } from '../helpers/engines.js';

/**
 * add_push_task checks a push task's URL and headers with the
 * patterns of src/core/push/push-rules.ts, written into it as they are: this
 * holds only while PostgreSQL's regular expressions read them as
 * JavaScript's do. Every character from 0x01 to 0x7f, and a few beyond,
 * in each pattern's place, on both engines.
 */
const chars = [...Array.from({ length: 127 }, (_, i) => String.fromCharCode(i + 1)), 'é', '€', '😀'];
const samples: Record<string, string[]> = {
  HEADER_NAME: [...chars.map((c) => `X${c}`), ...chars, 'X-Mine', 'x-appengine-failfast'],
  // No NUL: PostgreSQL's text cannot hold one (so the pattern's \0 never matters there).
  HEADER_VALUE: [...chars.map((c) => `a${c}b`), '', 'plain value', 'tab\there'],
  URL_PATH: [...chars.map((c) => `/a${c}`), ...chars.map((c) => `${c}a`), '/', '/path?x=1&y=%20', '/a#b', '/a b'],
  ...Object.fromEntries(
    ['DOUBLE_DOT_SEGMENT', 'SINGLE_DOT_SEGMENT', 'PATH_SEPARATOR', 'MAYBE_DOUBLE_DOT'].map((key) => [
      key,
      [
        ...chars,
        ...chars.map((c) => `.${c}`),
        '',
        '.',
        '..',
        '...',
        '%2e',
        '%2E',
        '%2e%2e',
        '.%2E',
        '%2e.',
        '%2f',
        'a..b',
        '%2e%2e%2e',
        '\\',
      ],
    ]),
  ),
};
const patterns = {
  HEADER_NAME,
  HEADER_VALUE,
  URL_PATH,
  DOUBLE_DOT_SEGMENT,
  SINGLE_DOT_SEGMENT,
  PATH_SEPARATOR,
  MAYBE_DOUBLE_DOT,
};

describe.each(ENGINES)('push rule patterns in SQL (%s)', (engine: TestEngine) => {
  let client: pg.Client | undefined;
  afterAll(async () => client?.end());
  const query = async (text: string, params: unknown[]): Promise<boolean[]> => {
    if (engine === 'pglite') return (await (await testPGlite()).query<{ m: boolean[] }>(text, params)).rows[0]!.m;
    if (!client) {
      client = new pg.Client({ connectionString: testPgUrl() });
      await client.connect();
    }
    return (await client.query<{ m: boolean[] }>(text, params)).rows[0]!.m;
  };

  it.each(Object.keys(patterns) as (keyof typeof patterns)[])(
    '%s matches in SQL exactly what it matches in JavaScript',
    async (key) => {
      const pattern = patterns[key];
      const texts = samples[key]!;
      const inSql = await query(
        `select array(select s ~ $2 from unnest($1::text[]) with ordinality u (s, i) order by i) as m`,
        [texts, pattern.source],
      );
      expect(Object.fromEntries(texts.map((s, i) => [JSON.stringify(s), inSql[i]]))).toEqual(
        Object.fromEntries(texts.map((s) => [JSON.stringify(s), pattern.test(s)])),
      );
    },
  );
});
