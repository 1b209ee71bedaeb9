import fc from 'fast-check';
import { gzipSync } from 'node:zlib';
import { batchRequest } from './multipart-batch.js';
import { LIMITED_QUEUE, MAIN_QUEUE } from './workload.js';

/** A request as the fuzzer sends it: everything a client controls, nothing checked. */
export interface HostileRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer | null;
}

/** Credentials: the administrator's token (so requests reach the handlers), none, and broken ones. */
export interface Credentials {
  readonly token: string;
}

/** Strings that have broken parsers before: prototype names, encodings, lengths, separators. */
const nasty = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-1',
    '1e309',
    'NaN',
    'Infinity',
    '0x10',
    '1.5',
    '9007199254740993',
    '99999999999999999999',
    'true',
    'false',
    'null',
    'undefined',
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'valueOf',
    '%',
    '%00',
    '%zz',
    '..',
    '../..',
    '/',
    '//',
    ';',
    ',',
    '*',
    '(',
    ')',
    '((',
    'items(',
    'items/__proto__',
    'items(__proto__)',
    'items/*',
    'a,,b',
    '\u0000',
    '\uffff',
    '\ud800',
    'é',
    '日本',
    '🙂',
    'lease',
    'tasks',
    ':batchDelete',
    'a'.repeat(501),
    'a'.repeat(5000),
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.integer().map(String),
  fc.double().map(String),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
);

// Mostly names that exist, so most requests get past routing into the handlers.
const queueName = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(MAIN_QUEUE, LIMITED_QUEUE, 'default', 'no-such-queue') },
  { weight: 1, arbitrary: nasty },
);
const taskName = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('seed-0', 'seed-1', 'seed-2', 'lease', 'missing-task') },
  { weight: 1, arbitrary: nasty },
);
const project = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('local', 's~local', 'e~local', 'other') },
  { weight: 1, arbitrary: nasty },
);

/** Percent-encodes every byte of the UTF-8 form but the unreserved ones (lone surrogates become U+FFFD, as on the wire). */
function pct(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * A header value as it can travel: the UTF-8 bytes as latin1 characters
 * (obs-text), control characters but tab as '?'. The HTTP client refuses
 * the rest, so sending them would test the client, not the server.
 */
function headerSafe(text: string): string {
  return Buffer.from(text, 'utf8')
    .toString('latin1')
    .replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');
}

/** A path segment: usually percent-encoded, sometimes raw (whatever the HTTP client lets through). */
const segment = (value: fc.Arbitrary<string>) =>
  fc.tuple(value, fc.boolean()).map(([text, raw]) => (raw && /^[\x21-\x7e]*$/.test(text) ? text : pct(text)));

const prefix = fc.oneof(
  fc.tuple(segment(project), segment(queueName)).map(([p, q]) => `/taskqueue/v1beta2/projects/${p}/taskqueues/${q}`),
  segment(queueName).map((q) => `/taskqueue/v1beta2/projects/taskqueues/${q}`),
);

/** The discovery document's parameters, its common ones, and aliases the service accepts. */
const PARAMETERS = [
  'getStats',
  'numTasks',
  'leaseSecs',
  'lease_secs',
  'groupByTag',
  'tag',
  'waitSecs',
  'newLeaseSeconds',
  'maxResults',
  'pageToken',
  'alt',
  'fields',
  'key',
  'oauth_token',
  'prettyPrint',
  'quotaUser',
  'userIp',
  'access_token',
  'callback',
  '$.xgafv',
  'upload_protocol',
  'uploadType',
  '__proto__',
  'constructor',
];
const parameterValue = fc.oneof(
  nasty,
  fc.constantFrom('1', '5', '50', '1000', '1001', '0', '60', '61', '604800', '604801', 'json', 'proto', 'media'),
  fc.constantFrom(
    'items',
    'items(id)',
    'items(id,payloadBase64)',
    'id,kind',
    'stats/totalTasks',
    'stats(*)',
    'kind,items/id',
  ),
);
const query = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom(...PARAMETERS), nasty), parameterValue), { maxLength: 6 })
  .map((pairs) => (pairs.length === 0 ? '' : '?' + pairs.map(([k, v]) => `${pct(k)}=${pct(v)}`).join('&')));

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const base64 = fc.oneof(
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes).toString('base64')),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes).toString('base64url')),
  nasty,
);
const anyJson = fc.jsonValue({ maxDepth: 4 });
const taskBody = fc
  .record(
    {
      id: fc.oneof(taskName, anyJson),
      payloadBase64: fc.oneof(base64, anyJson),
      tag: fc.oneof(nasty, anyJson),
      leaseTimestamp: fc.oneof(nasty, fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String), anyJson),
      queueName: fc.oneof(nasty, anyJson),
      kind: fc.oneof(fc.constant('taskqueues#task'), nasty),
      retry_count: fc.oneof(fc.integer(), anyJson),
      enqueueTimestamp: fc.oneof(nasty, anyJson),
      __proto__: anyJson,
    },
    { requiredKeys: [] },
  )
  .map(json);
const bodies = fc.oneof(
  { weight: 4, arbitrary: taskBody },
  {
    weight: 2,
    arbitrary: fc
      .record({ ids: fc.oneof(fc.array(taskName, { maxLength: 30 }), anyJson) }, { requiredKeys: [] })
      .map(json),
  },
  { weight: 2, arbitrary: anyJson.map(json) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 2000 }).map((bytes) => Buffer.from(bytes)) },
  {
    weight: 1,
    arbitrary: fc.tuple(parameterValue, parameterValue).map(([n, l]) => Buffer.from(`numTasks=${n}&leaseSecs=${l}`)),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1, max: 20_000 }).map((depth) => Buffer.from('['.repeat(depth) + ']'.repeat(depth))),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(1, 2 * 1024 * 1024, 2 * 1024 * 1024 + 1, 3 * 1024 * 1024)
      .map((n) => Buffer.alloc(n, 0x61)),
  },
);

const contentType = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/json; charset=UTF-8',
    'application/json; charset=latin1',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/mixed',
    'multipart/mixed; boundary=',
    'multipart/mixed; boundary=x',
    'multipart/form-data; boundary=x',
    'application/octet-stream',
    ';;;',
    'application/json; boundary="a',
  ),
  nasty,
);

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/** The methods of the discovery document (and the extensions), as method + path suffix. */
const route = fc.oneof(
  fc.constant({ method: 'GET', suffix: '' }),
  fc.constant({ method: 'GET', suffix: '/tasks' }),
  fc.constant({ method: 'POST', suffix: '/tasks' }),
  fc.constant({ method: 'POST', suffix: '/tasks/lease' }),
  fc.constant({ method: 'POST', suffix: '/tasks:batchDelete' }),
  segment(taskName).chain((task) =>
    fc.constantFrom(
      { method: 'GET', suffix: `/tasks/${task}` },
      { method: 'POST', suffix: `/tasks/${task}` },
      { method: 'PATCH', suffix: `/tasks/${task}` },
      { method: 'PUT', suffix: `/tasks/${task}` },
      { method: 'DELETE', suffix: `/tasks/${task}` },
    ),
  ),
  fc
    .tuple(fc.constantFrom('/tasks/', '/tasks:', '/', ':'), nasty)
    .map(([s, n]) => ({ method: 'POST', suffix: s + pct(n) })),
);

function headersArb(credentials: Credentials) {
  return fc.record(
    {
      authorization: fc.oneof(
        { weight: 6, arbitrary: fc.constant(`Bearer ${credentials.token}`) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            '',
            'Bearer',
            'Bearer ',
            `Bearer ${credentials.token}x`,
            `bearer ${credentials.token}`,
            'Basic YTpi',
          ),
        },
        { weight: 1, arbitrary: nasty.map((s) => `Bearer ${s}`) },
        { weight: 1, arbitrary: fc.constant(`Bearer ${credentials.token.slice(0, -4)}AAAA`) },
      ),
      'content-type': contentType,
      'x-http-method-override': fc.oneof(fc.constantFrom('PATCH', 'patch', 'GET', 'DELETE', 'POST', ''), nasty),
      'content-encoding': fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'gzip, gzip', 'x'),
      'if-match': fc.oneof(fc.constantFrom('*', '"abc"', 'W/"abc"', '""', '"'), nasty),
      'accept-encoding': fc.constantFrom('gzip', 'gzip;q=0', 'identity', '*'),
      'user-agent': fc.constantFrom('torture (gzip)', 'curl', ''),
      'x-goog-api-client': nasty,
    },
    { requiredKeys: ['authorization'] },
  );
}

/** A single (non-batch) hostile request: route, parameters, headers and body. */
function singleRequest(credentials: Credentials): fc.Arbitrary<HostileRequest> {
  return fc
    .record({
      prefix,
      route,
      method: fc.oneof(
        { weight: 5, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
      ),
      query,
      headers: headersArb(credentials),
      body: fc.option(bodies, { freq: 3 }),
      gzip: fc.boolean(),
    })
    .map(({ prefix, route, method, query, headers, body, gzip }) => {
      const sendsBody = body !== null;
      let payload = body;
      const h: Record<string, string> = Object.fromEntries(
        Object.entries(headers).map(([name, value]) => [name, headerSafe(value)]),
      );
      // A body gzipped as the header says, half of the times the header is gzip; otherwise the header lies.
      if (payload && h['content-encoding'] === 'gzip' && gzip) payload = gzipSync(payload);
      if (!sendsBody) delete h['content-encoding'];
      return { method: method ?? route.method, path: prefix + route.suffix + query, headers: h, body: payload };
    });
}

/** Batches: well-formed ones of hostile calls, and malformed multipart bodies. */
function batchRequestArb(credentials: Credentials): fc.Arbitrary<HostileRequest> {
  const inner = singleRequest(credentials).map((request) => ({
    method: request.method,
    path: request.path,
    headers: Object.fromEntries(
      Object.entries(request.headers).filter(([name]) => name !== 'authorization' && name !== 'content-encoding'),
    ),
    body: request.body && request.body.length < 10_000 ? request.body.toString('latin1') : undefined,
  }));
  const wellFormed = fc.array(inner, { minLength: 1, maxLength: 8 }).map((calls) => batchRequest(calls));
  const mutated = fc
    .tuple(wellFormed, fc.nat(), fc.nat({ max: 40 }), fc.string({ maxLength: 10 }))
    .map(([batch, at, cut, insert]) => {
      const i = at % (batch.body.length + 1);
      return { contentType: batch.contentType, body: batch.body.slice(0, i) + insert + batch.body.slice(i + cut) };
    });
  const lfOnly = wellFormed.map((batch) => ({
    contentType: batch.contentType,
    body: batch.body.replace(/\r\n/g, '\n'),
  }));
  const tooMany = fc.constant(
    batchRequest(
      Array.from({ length: 1001 }, (_, i) => ({
        method: 'GET',
        path: `/taskqueue/v1beta2/projects/local/taskqueues/torture/tasks/seed-${i % 3}`,
      })),
    ),
  );
  return fc
    .record({
      batch: fc.oneof(
        { weight: 4, arbitrary: wellFormed },
        { weight: 3, arbitrary: mutated },
        { weight: 1, arbitrary: lfOnly },
        { weight: 1, arbitrary: tooMany },
      ),
      path: fc.constantFrom('/batch', '/batch/taskqueue/v1beta2', '/batch/taskqueue/v1', '/batch/other'),
      method: fc.oneof(
        { weight: 8, arbitrary: fc.constant('POST') },
        { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
      ),
      query,
      contentType: fc.option(contentType, { freq: 5 }),
    })
    .map(({ batch, path, method, query, contentType }) => ({
      method,
      path: path + query,
      headers: { authorization: `Bearer ${credentials.token}`, 'content-type': contentType ?? batch.contentType },
      body: Buffer.from(batch.body, 'latin1'),
    }));
}

/** Everything else the server answers: health, discovery, OpenAPI, and paths that are nothing. */
const otherRequest = fc
  .record({
    path: fc.oneof(
      fc.constantFrom(
        '/healthz',
        '/discovery/v1/apis/taskqueue/v1beta2/rest',
        '/openapi.json',
        '/',
        '/taskqueue/v1beta2',
        '/taskqueue/v1beta2/projects/local',
      ),
      fc.array(segment(nasty), { maxLength: 6 }).map((parts) => '/' + parts.join('/')),
    ),
    method: fc.constantFrom(...METHODS),
    query,
  })
  .map(({ path, method, query }) => ({ method, path: path + query, headers: {}, body: null }));

export function hostileRequest(credentials: Credentials): fc.Arbitrary<HostileRequest> {
  return fc.oneof(
    { weight: 8, arbitrary: singleRequest(credentials) },
    { weight: 2, arbitrary: batchRequestArb(credentials) },
    { weight: 1, arbitrary: otherRequest },
  );
}
