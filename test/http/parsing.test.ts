import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, QueueError } from '../../src/core/errors.js';
import { decodePayloadBase64, encodePayloadBase64 } from '../../src/http/base64-payload.js';
import { errorParts } from '../../src/http/error-response.js';
import { ERROR_STATUS } from '../../src/http/error-status.js';
import { wantsGzip } from '../../src/http/gzip-response.js';
import { HttpError } from '../../src/http/http-error.js';
import { decodePageToken, encodePageToken } from '../../src/http/page-token.js';
import { isOwnProject, isSameQueueName } from '../../src/http/project-id.js';
import { QueryParams } from '../../src/http/query-params.js';

describe('decodePayloadBase64', () => {
  it.each([
    ['aGVsbG8=', 'hello'],
    ['aGVsbG8', 'hello'],
    ['aGk=', 'hi'],
    ['aGk', 'hi'],
    ['', ''],
  ])('accepts %j', (text, decoded) => {
    expect(decodePayloadBase64(text).toString()).toBe(decoded);
  });

  it('accepts both alphabets, padded or not', () => {
    const bytes = Buffer.from([0xfb, 0xff, 0xbf, 0xfe]);
    for (const text of ['+/+//g==', '+/+//g', '-_-__g==', '-_-__g']) {
      expect(decodePayloadBase64(text)).toEqual(bytes);
    }
    // App Engine accepted unused low bits in the last character (hawkeye: asdf123 -> asdf120=).
    expect(encodePayloadBase64(decodePayloadBase64('asdf123'))).toBe('asdf120=');
    expect(decodePayloadBase64('_NDQaWRvMm_1UQ==')).toEqual(Buffer.from('/NDQaWRvMm/1UQ==', 'base64'));
  });

  it.each([
    '@@@',
    'invalid#payload',
    'aGVs bG8=',
    'aGVsbG8=\n',
    'a',
    'aGVsb',
    'aGk==',
    'aG=k',
    'aGk===',
    '=',
    '+/-_',
    'aGVsbG8===',
  ])('refuses %j with a 400 naming payloadBase64', (text) => {
    const error = (() => {
      try {
        decodePayloadBase64(text);
      } catch (e) {
        return e;
      }
    })() as HttpError;
    expect(error).toBeInstanceOf(HttpError);
    expect(error.status).toBe(400);
    expect(error.message).toContain('payloadBase64');
  });

  it('decodes what either encoder wrote, padded or not (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.boolean(), fc.boolean(), (bytes, urlSafe, padded) => {
        let text = Buffer.from(bytes)
          .toString(urlSafe ? 'base64url' : 'base64')
          .replace(/=+$/, '');
        if (padded) text += '='.repeat((4 - (text.length % 4)) % 4);
        expect(decodePayloadBase64(text)).toEqual(Buffer.from(bytes));
        expect(decodePayloadBase64(encodePayloadBase64(Buffer.from(bytes)))).toEqual(Buffer.from(bytes));
      }),
    );
  });
});

describe('QueryParams', () => {
  const range = { min: 1, max: 1000 };

  it('reads plain decimal integers within range', () => {
    expect(QueryParams.fromString('numTasks=10').integer('numTasks', range)).toBe(10);
    expect(QueryParams.fromString('numTasks=1000').integer('numTasks', range)).toBe(1000);
    expect(QueryParams.fromString('').integer('numTasks', range)).toBeUndefined();
  });

  it.each(['10abc', '0x10', '', '1.5', '1e3', '-1', '0', '1001', ' 10', '+5', '9007199254740993', 'Infinity', '١٢'])(
    'refuses numTasks=%j with a 400 naming the parameter',
    (value) => {
      const query = QueryParams.fromString(`numTasks=${encodeURIComponent(value)}`);
      expect(() => query.integer('numTasks', range)).toThrow(/parameter numTasks/);
    },
  );

  it('refuses a repeated parameter', () => {
    expect(() => QueryParams.fromString('numTasks=1&numTasks=2').integer('numTasks', range)).toThrow('given only once');
  });

  it('reads booleans for real', () => {
    expect(QueryParams.fromString('b=false').boolean('b')).toBe(false);
    expect(QueryParams.fromString('b=TRUE').boolean('b')).toBe(true);
    for (const bad of ['', '1', 'yes', 'no', 'falsey']) {
      expect(() => QueryParams.fromString(`b=${bad}`).boolean('b')).toThrow(/parameter b/);
    }
  });

  it('refuses a parameter given in both the query string and the body', () => {
    const merged = QueryParams.fromString('a=1').with(QueryParams.fromString('b=2'));
    expect(merged.string('b')).toBe('2');
    expect(() => QueryParams.fromString('a=1').with(QueryParams.fromString('a=1'))).toThrow(
      'both in the query string and in the body',
    );
  });
});

describe('page tokens', () => {
  it('round-trip positions and refuse anything else', () => {
    const token = encodePageToken({ etaUsec: 1_700_000_000_123_456, name: 'task-1_x' });
    expect(decodePageToken(token, 'pageToken')).toEqual({ etaUsec: 1_700_000_000_123_456, name: 'task-1_x' });
    for (const bad of [
      '',
      'abc',
      '!!!',
      Buffer.from('1:12:bad/name').toString('base64url'),
      Buffer.from('2:1:x').toString('base64url'),
    ]) {
      expect(() => decodePageToken(bad, 'pageToken')).toThrow('parameter pageToken');
    }
  });
});

describe('wantsGzip (spec 4.3: Accept-Encoding gzip AND gzip in User-Agent)', () => {
  it('needs both headers', () => {
    expect(wantsGzip('gzip', 'google-api-nodejs-client/29.0.0 (gzip)')).toBe(true);
    expect(wantsGzip('gzip, deflate', 'my-app (gzip)')).toBe(true);
    expect(wantsGzip('gzip', 'curl/8')).toBe(false);
    expect(wantsGzip(undefined, 'x (gzip)')).toBe(false);
    expect(wantsGzip('deflate, br', 'x (gzip)')).toBe(false);
    expect(wantsGzip('gzip;q=0', 'x (gzip)')).toBe(false);
    expect(wantsGzip('gzip;q=0.5', 'x (gzip)')).toBe(true);
  });
});

describe('project ids and queue names', () => {
  it('accepts app, s~app and e~app, and refuses other projects', () => {
    for (const p of ['app', 's~app', 'e~app']) expect(isOwnProject(p, 'app')).toBe(true);
    expect(isOwnProject('other', 'app')).toBe(false);
    expect(isOwnProject('app', 's~app')).toBe(true);
  });

  it('accepts a body queueName in short or full form', () => {
    expect(isSameQueueName('q', 'q', 'app')).toBe(true);
    expect(isSameQueueName('projects/s~app/taskqueues/q', 'q', 'app')).toBe(true);
    expect(isSameQueueName('projects/other/taskqueues/q', 'q', 'app')).toBe(false);
    expect(isSameQueueName('projects/app/taskqueues/r', 'q', 'app')).toBe(false);
  });
});

describe('the error table', () => {
  it('gives every QueueError code a status, and 503s a Retry-After', () => {
    expect(Object.keys(ERROR_STATUS).sort()).toEqual([...ERROR_CODES].sort());
    for (const code of ERROR_CODES) {
      const parts = errorParts(new QueueError(code, `message of ${code}`));
      expect(parts.status).toBe(ERROR_STATUS[code].status);
      expect(parts.headers['retry-after'] !== undefined).toBe(parts.status === 503);
      // Internal errors never show their message.
      expect(parts.item.message).toBe(parts.status === 500 ? 'Internal error' : `message of ${code}`);
    }
    expect(errorParts(new QueueError('UNKNOWN_TASK', 'x')).status).toBe(404);
    expect(errorParts(new QueueError('TASK_ALREADY_EXISTS', 'x')).status).toBe(409);
    expect(errorParts(new QueueError('TASK_TOO_LARGE', 'x')).status).toBe(413);
    expect(errorParts(new QueueError('STORAGE_LIMIT_EXCEEDED', 'x')).status).toBe(507);
  });

  it('hides unexpected errors behind a bare 500', () => {
    const parts = errorParts(new TypeError('secret stack detail'));
    expect(parts).toEqual({
      status: 500,
      item: { domain: 'global', reason: 'internalError', message: 'Internal error' },
      headers: {},
    });
  });

  it('passes the WWW-Authenticate challenge of 401 and 403', () => {
    const parts = errorParts(
      new QueueError('UNAUTHENTICATED', 'no token', { wwwAuthenticate: 'Bearer realm="taskqueue"' }),
    );
    expect(parts.status).toBe(401);
    expect(parts.headers['www-authenticate']).toBe('Bearer realm="taskqueue"');
  });
});
