import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64, openHarness, type Harness } from './harness.js';

/** Values that have broken parsers elsewhere: empty, hex, exponents, NUL, lone surrogates, huge, unicode digits. */
const hostile = fc.oneof(
  fc.constantFrom(
    '',
    '0',
    '1',
    '-1',
    '1.5',
    '1e3',
    '0x10',
    '10abc',
    '9007199254740993',
    'true',
    'false',
    'null',
    '\u0000',
    '\ud800',
    '١٢',
    '%zz',
    '*',
    ' ',
  ),
  fc.string({ maxLength: 20 }),
  fc.integer({ min: -5, max: 2_000_000 }).map(String),
);

const PARAMS = [
  'numTasks',
  'leaseSecs',
  'lease_secs',
  'groupByTag',
  'tag',
  'waitSecs',
  'newLeaseSeconds',
  'getStats',
  'maxResults',
  'pageToken',
  'fields',
  'alt',
  'prettyPrint',
  'oauth_token',
  'key',
];

/** Hostile parameters alone, or added to a valid set, so that requests also get past the first check. */
const query = fc
  .tuple(
    fc.constantFrom('', 'numTasks=2&leaseSecs=30', 'newLeaseSeconds=10', 'getStats=true', 'maxResults=1'),
    fc.array(fc.tuple(fc.constantFrom(...PARAMS), hostile), { maxLength: 3 }),
  )
  .map(([base, pairs]) => {
    const params = new URLSearchParams(base);
    for (const [k, v] of pairs) if (k !== 'waitSecs') params.append(k, v);
    return params.toString();
  });

const jsonValue = fc.oneof(hostile, fc.integer(), fc.constant(null), fc.boolean(), fc.constant({}), fc.constant([1]));

const body = fc.oneof(
  fc
    .dictionary(
      fc.constantFrom(
        'id',
        'payloadBase64',
        'tag',
        'leaseTimestamp',
        'queueName',
        'kind',
        'retry_count',
        '__proto__',
        'constructor',
      ),
      jsonValue,
      {
        maxKeys: 5,
      },
    )
    .map((object) => JSON.stringify(object)),
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    '',
    '{',
    '[]',
    'null',
    '"x"',
    '{"payloadBase64":"aGk="}',
    '{"payloadBase64":"aGk=","id":"t1"}',
    '{"tag":null}',
    'numTasks=1&leaseSecs=1',
  ),
);

const request = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PATCH', 'PUT', 'DELETE'),
  path: fc.constantFrom(
    '',
    '/tasks',
    '/tasks/lease',
    '/tasks/t1',
    '/tasks/lease',
    '/tasks/%00',
    '/tasks/a%2Fb',
    '/tasks/x%ZZ',
  ),
  project: fc.oneof(
    { arbitrary: fc.constantFrom('local', 's~local'), weight: 8 },
    { arbitrary: fc.constantFrom('other', 'taskqueues'), weight: 1 },
  ),
  queue: fc.oneof(
    { arbitrary: fc.constant('q'), weight: 8 },
    { arbitrary: fc.constantFrom('default', 'nope', '%00'), weight: 1 },
  ),
  query,
  body,
  contentType: fc.constantFrom('application/json', 'application/x-www-form-urlencoded', 'text/plain'),
  extra: fc.constantFrom<Record<string, string>>(
    {},
    { 'if-match': '"stale"' },
    { 'if-none-match': '*' },
    { 'x-http-method-override': 'PATCH' },
    { 'x-http-method-override': 'GET' },
    { 'content-encoding': 'gzip' },
    { 'content-encoding': 'zstd' },
  ),
});

/**
 * A schemathesis-like loop: generated requests with hostile parameters,
 * bodies and headers against every route. Whatever comes in, the answer is
 * a documented status, never a 5xx, and every error is Google's envelope.
 */
describe('bad input never becomes a 500', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness('postgres');
    await h.insert({ id: 't1', payloadBase64: b64('x'), tag: 'a' });
  });
  afterAll(async () => h.close());

  it('answers every generated request with a 2xx, 304 or 4xx in the envelope (property)', async () => {
    const allowed = new Set([200, 304, 400, 401, 403, 404, 405, 409, 412, 413, 415]);
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const url = `/taskqueue/v1beta2/projects/${r.project}/taskqueues/${r.queue}${r.path}${r.query ? `?${r.query}` : ''}`;
        const hasBody = r.method !== 'GET' && r.method !== 'DELETE';
        const response = await h.call(url, {
          method: r.method,
          headers: { 'content-type': r.contentType, ...r.extra },
          ...(hasBody ? { body: r.body } : {}),
        });
        expect(allowed.has(response.status), `${r.method} ${url} -> ${response.status} ${response.text}`).toBe(true);
        if (response.status >= 400) {
          expect(response.json.error.code).toBe(response.status);
          expect(response.json.error.errors[0].domain).toBe('global');
          expect(response.text).not.toMatch(/at .*\.ts:\d+/);
        }
      }),
      // A random seed each run (fast-check prints it on failure); 3 x 3000 runs found nothing when this was written.
      { numRuns: 400 },
    );
  });

  it('refuses tags PostgreSQL could not store faithfully with 400', async () => {
    for (const tag of ['a\u0000b', '\ud800', 'x\udc00']) {
      const insert = await h.call('/taskqueue/v1beta2/projects/local/taskqueues/q/tasks', {
        method: 'POST',
        body: { payloadBase64: '', tag },
      });
      expect(insert.status).toBe(400);
      expect(insert.json.error.message).toContain('tag');
    }
    const lease = await h.call(
      `/taskqueue/v1beta2/projects/local/taskqueues/q/tasks/lease?numTasks=1&leaseSecs=1&groupByTag=true&tag=%00`,
      { method: 'POST' },
    );
    expect(lease.status).toBe(400);
  });
});
