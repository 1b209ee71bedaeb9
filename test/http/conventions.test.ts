import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { b64, listen, openHarness, queuePath, type Harness } from './harness.js';

const tasks = `${queuePath()}/tasks`;

describe('request conventions (spec section 4.3) over app.request', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await openHarness('postgres');
    await h.insert({ id: 't1', payloadBase64: b64('one'), tag: 'a' });
    await h.insert({ id: 't2', payloadBase64: b64('two') });
  });
  afterEach(async () => h.close());

  describe('fields', () => {
    it('filters every kind of response, arrays element by element, parents kept', async () => {
      expect((await h.call(`${tasks}/t1?fields=id,tag`)).json).toEqual({ id: 't1', tag: 'a' });
      expect((await h.call(`${tasks}?fields=items(id,tag)`)).json).toEqual({
        items: [{ id: 't1', tag: 'a' }, { id: 't2' }],
      });
      expect((await h.call(`${tasks}?fields=items/id,kind`)).json).toEqual({
        kind: 'taskqueues#tasks',
        items: [{ id: 't1' }, { id: 't2' }],
      });
      expect((await h.call(`${queuePath()}?fields=acl/consumerEmails`)).json).toEqual({ acl: { consumerEmails: [] } });
      expect((await h.call(`${queuePath()}?getStats=true&fields=stats(totalTasks)`)).json).toEqual({
        stats: { totalTasks: 2 },
      });
      const leased = await h.call(`${tasks}/lease?numTasks=1&leaseSecs=60&fields=items/payloadBase64`, {
        method: 'POST',
      });
      expect(leased.json).toEqual({ items: [{ payloadBase64: b64('one') }] });
      const inserted = await h.call(`${tasks}?fields=id`, { method: 'POST', body: { id: 't3', payloadBase64: '' } });
      expect(inserted.json).toEqual({ id: 't3' });
      expect((await h.call(`${tasks}/t2?fields=*`)).json).toEqual((await h.call(`${tasks}/t2`)).json);
      expect((await h.call(`${tasks}/t2?fields=${encodeURIComponent('id,tag')}`)).json).toEqual({ id: 't2' });
    });

    it('refuses an invalid selection with 400 naming the problem, before the method runs', async () => {
      const cases: [string, string][] = [
        ['items(id', 'missing ")"'],
        ['itmes', '"itmes" is not a field'],
        ['data/items', '"data" is not a field'],
        ['kind/x', '"kind" has no fields'],
        ['a,,b', 'expected a field name'],
        // Names every plain object inherits are not fields either.
        ['constructor', '"constructor" is not a field'],
        ['__proto__', '"__proto__" is not a field'],
        ['toString', '"toString" is not a field'],
        ['items/__proto__', '"items/__proto__" is not a field'],
        ['items/hasOwnProperty', '"items/hasOwnProperty" is not a field'],
      ];
      for (const [fields, problem] of cases) {
        const r = await h.call(`${tasks}?fields=${encodeURIComponent(fields)}`);
        expect(r.status).toBe(400);
        expect(r.json.error.message).toContain(problem);
        expect(r.json.error.errors[0]).toMatchObject({ reason: 'invalidParameter', location: 'fields' });
      }
      const insert = await h.call(`${tasks}?fields=nope`, { method: 'POST', body: { id: 'never', payloadBase64: '' } });
      expect(insert.status).toBe(400);
      expect((await h.call(`${tasks}/never`)).status).toBe(404);
    });

    it('leaves error responses whole', async () => {
      const r = await h.call(`${tasks}/missing?fields=id`);
      expect(r.status).toBe(404);
      expect(r.json.error.code).toBe(404);
    });
  });

  it('prettyPrint: indented by default and when true, compact when false; other values are 400', async () => {
    expect((await h.call(`${tasks}/t1`)).text).toContain('\n  "id": "t1"');
    expect((await h.call(`${tasks}/t1?prettyPrint=true`)).text).toContain('\n  "id": "t1"');
    const compact = await h.call(`${tasks}/t1?prettyPrint=false`);
    expect(compact.text).not.toContain('\n');
    expect(compact.text.startsWith('{"kind":"taskqueues#task","id":"t1"')).toBe(true);
    const errorCompact = await h.call(`${tasks}/missing?prettyPrint=false`);
    expect(errorCompact.text).not.toContain('\n');
    expect((await h.call(`${tasks}/t1?prettyPrint=no`)).status).toBe(400);
  });

  it('alt must be json', async () => {
    expect((await h.call(`${tasks}/t1?alt=json`)).status).toBe(200);
    const proto = await h.call(`${tasks}/t1?alt=proto`);
    expect(proto.status).toBe(400);
    expect(proto.json.error.message).toContain('alt');
  });

  it('accepts quotaUser, userIp, key and oauth_token', async () => {
    const r = await h.call(`${tasks}/t1?quotaUser=u1&userIp=10.0.0.1&key=k&oauth_token=tok`);
    expect(r.status).toBe(200);
    expect(r.text).not.toContain('tok');
  });

  describe('ETags', () => {
    it('answer 304 to If-None-Match with the current ETag, and 200 once it changed', async () => {
      const first = await h.call(`${tasks}/t1`);
      const etag = first.headers.get('etag') as string;
      const notModified = await h.call(`${tasks}/t1`, { headers: { 'if-none-match': etag } });
      expect(notModified.status).toBe(304);
      expect(notModified.text).toBe('');
      expect(notModified.headers.get('etag')).toBe(etag);
      expect((await h.call(`${tasks}/t1`, { headers: { 'if-none-match': '*' } })).status).toBe(304);
      for (const path of [queuePath(), tasks]) {
        const r = await h.call(path);
        expect((await h.call(path, { headers: { 'if-none-match': r.headers.get('etag') as string } })).status).toBe(
          304,
        );
      }
      await h.lease('numTasks=1&leaseSecs=60');
      const changed = await h.call(`${tasks}/t1`, { headers: { 'if-none-match': etag } });
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).not.toBe(etag);
    });

    it('give a list and a lease one ETag over their tasks: a changed task changes it, an empty lease has one too', async () => {
      const listEtag = (await h.call(tasks)).headers.get('etag') as string;
      expect(listEtag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
      expect((await h.call(tasks)).headers.get('etag')).toBe(listEtag);
      const lease = () => h.call(`${tasks}/lease?numTasks=1&leaseSecs=60`, { method: 'POST' });
      const leased = await lease();
      const leaseEtag = leased.headers.get('etag') as string;
      expect(leaseEtag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
      const relisted = await h.call(tasks, { headers: { 'if-none-match': listEtag } });
      expect(relisted.status).toBe(200);
      expect(relisted.headers.get('etag')).not.toBe(listEtag);
      const again = await lease();
      expect(again.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
      expect(again.headers.get('etag')).not.toBe(leaseEtag);
      const empty = await lease();
      expect(empty.json).toEqual({ kind: 'taskqueues#tasks' });
      expect(empty.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
      expect(empty.headers.get('etag')).not.toBe(again.headers.get('etag'));
    });

    it('answer 304 with the headers the 200 carries that RFC 9110 keeps (ETag, Vary, Date, Cache-Control), over a real connection', async () => {
      const server = await listen(h.app);
      try {
        for (const path of [`${tasks}/t1`, tasks, queuePath(), `${tasks}/t1?oauth_token=tok`]) {
          const full = await fetch(`${server.url}${path}`);
          await full.arrayBuffer();
          expect(full.status).toBe(200);
          const etag = full.headers.get('etag') as string;
          const notModified = await fetch(`${server.url}${path}`, { headers: { 'if-none-match': etag } });
          expect(await notModified.text()).toBe('');
          expect(notModified.status).toBe(304);
          expect(notModified.headers.get('etag')).toBe(etag);
          expect(notModified.headers.get('vary')).toBe(full.headers.get('vary'));
          expect(notModified.headers.get('vary')).toBe('Accept-Encoding, User-Agent');
          expect(notModified.headers.get('date')).toMatch(/GMT$/);
          expect(notModified.headers.get('cache-control')).toBe(full.headers.get('cache-control'));
          // A 304 has no body, so no header that describes one.
          expect(notModified.headers.get('content-type')).toBeNull();
          expect(notModified.headers.get('content-encoding')).toBeNull();
        }
        expect(
          (await fetch(`${server.url}${tasks}/t1?oauth_token=tok`, { headers: { 'if-none-match': '*' } })).headers.get(
            'cache-control',
          ),
        ).toBe('private');
      } finally {
        await server.close();
      }
    });

    it('If-Match with a stale ETag is 412 and changes nothing; the current one or * goes through', async () => {
      const etag = (await h.call(`${tasks}/t1`)).headers.get('etag') as string;
      const [leased] = await h.lease('numTasks=1&leaseSecs=60');
      const stale = await h.call(`${tasks}/t1?newLeaseSeconds=30`, {
        method: 'PATCH',
        body: { tag: 'b' },
        headers: { 'if-match': etag },
      });
      expect(stale.status).toBe(412);
      expect(stale.json.error.errors[0].reason).toBe('conditionNotMet');
      expect((await h.call(`${tasks}/t1`)).json.tag).toBe('a');
      expect((await h.call(`${tasks}/t1`, { method: 'DELETE', headers: { 'if-match': etag } })).status).toBe(412);

      const current = (await h.call(`${tasks}/t1`)).headers.get('etag') as string;
      const ok = await h.call(`${tasks}/t1?newLeaseSeconds=30`, {
        method: 'PATCH',
        body: { tag: 'b' },
        headers: { 'if-match': current },
      });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('etag')).not.toBe(current);
      const forced = await h.call(`${tasks}/t1?newLeaseSeconds=30`, {
        method: 'POST',
        body: { leaseTimestamp: ok.json.leaseTimestamp },
        headers: { 'if-match': '*' },
      });
      expect(forced.status).toBe(200);
      expect(leased.id).toBe('t1');
      const deleteEtag = forced.headers.get('etag') as string;
      expect((await h.call(`${tasks}/t1`, { method: 'DELETE', headers: { 'if-match': deleteEtag } })).status).toBe(200);
    });
  });

  it('X-HTTP-Method-Override: PATCH on POST is a PATCH (even on .../tasks/lease); other overrides are 400', async () => {
    await h.lease('numTasks=2&leaseSecs=60');
    const r = await h.call(`${tasks}/t1?newLeaseSeconds=30`, {
      method: 'POST',
      body: { tag: null },
      headers: { 'x-http-method-override': 'PATCH' },
    });
    expect(r.status).toBe(200);
    expect(r.json.tag).toBeUndefined();
    await h.insert({ id: 'lease', payloadBase64: '' });
    await h.lease('numTasks=1&leaseSecs=60');
    const named = await h.call(`${tasks}/lease?newLeaseSeconds=30`, {
      method: 'POST',
      body: { tag: 'x' },
      headers: { 'x-http-method-override': 'patch' },
    });
    expect(named.status).toBe(200);
    expect(named.json).toMatchObject({ id: 'lease', tag: 'x' });
    const bad = await h.call(`${tasks}/t1`, {
      method: 'POST',
      body: {},
      headers: { 'x-http-method-override': 'DELETE' },
    });
    expect(bad.status).toBe(400);
    expect((await h.call(`${tasks}/t1`)).status).toBe(200);
  });

  describe('request bodies', () => {
    it('accepts gzip-encoded bodies', async () => {
      const body = gzipSync(JSON.stringify({ id: 'zipped', payloadBase64: b64('compressed') }));
      const r = await h.call(tasks, {
        method: 'POST',
        body: new Uint8Array(body),
        headers: { 'content-encoding': 'gzip', 'content-type': 'application/json' },
      });
      expect(r.status).toBe(200);
      expect(r.json.id).toBe('zipped');
    });

    it('refuses a gzip body that inflates past the cap with 413, corrupt gzip with 400, other encodings with 415', async () => {
      const bomb = gzipSync(Buffer.alloc(10 * 1024 * 1024, 0x20));
      expect(bomb.byteLength).toBeLessThan(100 * 1024);
      const r = await h.call(tasks, {
        method: 'POST',
        body: new Uint8Array(bomb),
        headers: { 'content-encoding': 'gzip' },
      });
      expect(r.status).toBe(413);
      expect(r.json.error.errors[0].reason).toBe('requestTooLarge');
      const corrupt = await h.call(tasks, {
        method: 'POST',
        body: 'not gzip at all',
        headers: { 'content-encoding': 'gzip' },
      });
      expect(corrupt.status).toBe(400);
      const br = await h.call(tasks, { method: 'POST', body: '{}', headers: { 'content-encoding': 'br' } });
      expect(br.status).toBe(415);
    });

    it('refuses bodies over 2 MiB with 413, by Content-Length or by counting', async () => {
      const huge = JSON.stringify({ payloadBase64: 'A'.repeat(3 * 1024 * 1024) });
      const counted = await h.call(tasks, {
        method: 'POST',
        body: huge,
        headers: { 'content-type': 'application/json' },
      });
      expect(counted.status).toBe(413);
      const declared = await h.call(tasks, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json', 'content-length': String(3 * 1024 * 1024) },
      });
      expect(declared.status).toBe(413);
    });
  });
});
