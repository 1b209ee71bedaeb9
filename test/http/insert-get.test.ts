import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { b64, openHarness, queuePath, unb64, type Harness } from './harness.js';

const tasks = `${queuePath()}/tasks`;

describe('tasks.insert and tasks.get over HTTP', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await openHarness('postgres');
  });
  afterEach(async () => h.close());

  it('inserts a task and answers the stored task in the discovery shape', async () => {
    const before = Date.now() * 1000;
    const r = await h.call(tasks, { method: 'POST', body: { id: 'job-1', payloadBase64: b64('hello'), tag: 'mail' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    expect(r.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(r.json).toEqual({
      kind: 'taskqueues#task',
      id: 'job-1',
      queueName: 'projects/local/taskqueues/q',
      payloadBase64: b64('hello'),
      enqueueTimestamp: expect.stringMatching(/^[0-9]{16}$/),
      leaseTimestamp: expect.stringMatching(/^[0-9]{16}$/),
      retry_count: 0,
      tag: 'mail',
    });
    // Microseconds since the epoch, as decimal strings.
    expect(Math.abs(Number(r.json.enqueueTimestamp) - before)).toBeLessThan(60_000_000);
    const [row] = await h.t.sql<{ payload: Buffer; tag: string }>(
      `select payload, tag from ${h.t.schema}.tasks where name = 'job-1'`,
    );
    expect(row?.payload.toString()).toBe('hello');
    expect(row?.tag).toBe('mail');
  });

  it('refuses a field outside the Task schema with 400 naming it, and stores nothing', async () => {
    for (const [body, field] of [
      [{ name: 't-17', payloadBase64: b64('x') }, 'name'],
      [{ id: 't-18', payloadBase64: b64('x'), retryCount: 1 }, 'retryCount'],
      [{ id: 't-19', payloadBase64: b64('x'), delaySeconds: 5 }, 'delaySeconds'],
    ] as const) {
      const r = await h.call(tasks, { method: 'POST', body });
      expect(r.status).toBe(400);
      expect(r.json.error.errors[0]).toMatchObject({
        reason: 'invalid',
        location: field,
        message: expect.stringContaining(`"${field}"`),
      });
    }
    expect(await h.t.sql(`select name from ${h.t.schema}.tasks`)).toEqual([]);
    // Every field of the discovery's Task schema is accepted, retry_count included.
    const all = await h.call(tasks, {
      method: 'POST',
      body: {
        kind: 'taskqueues#task',
        id: 't-20',
        queueName: 'q',
        payloadBase64: b64('x'),
        tag: 'a',
        leaseTimestamp: '0',
        enqueueTimestamp: '0',
        retry_count: 0,
      },
    });
    expect(all.status).toBe(200);
    expect(all.json.id).toBe('t-20');
  });

  it('generates a name when id is absent or empty, and ignores server-set fields', async () => {
    const a = await h.insert({ payloadBase64: b64('a') });
    const b = await h.insert({ id: '', payloadBase64: b64('b'), retry_count: 7, kind: 'bogus', enqueueTimestamp: '5' });
    expect(a.id).toMatch(/^[A-Za-z0-9_-]{10,}$/);
    expect(b.id).not.toBe(a.id);
    expect(b.retry_count).toBe(0);
    expect(b.kind).toBe('taskqueues#task');
    expect(b.enqueueTimestamp).not.toBe('5');
    expect(a.tag).toBeUndefined();
  });

  it('accepts payloads in either base64 alphabet, padded or not, and answers URL-safe with padding', async () => {
    const bytes = Buffer.from([0xfb, 0xff, 0xbf, 0xfe]);
    for (const [i, text] of ['+/+//g==', '-_-__g', '+/+//g', '-_-__g=='].entries()) {
      const task = await h.insert({ id: `p${i}`, payloadBase64: text });
      expect(task.payloadBase64).toBe('-_-__g==');
      expect(Buffer.from(task.payloadBase64, 'base64')).toEqual(bytes);
    }
  });

  it.each([
    ['a payload outside the base64 alphabet', { payloadBase64: '@@@' }, 400, 'payloadBase64'],
    ['a payload with a space', { payloadBase64: 'aGVs bG8=' }, 400, 'payloadBase64'],
    ['no payload', {}, 400, 'payloadBase64 must be specified'],
    ['a payload that is not a string', { payloadBase64: 5 }, 400, 'payloadBase64 must be a string'],
    ['an invalid id', { payloadBase64: '', id: 'bad name' }, 400, 'task name'],
    ['a tag that is not a string', { payloadBase64: '', tag: 5 }, 400, 'tag must be a string'],
    ['a 501-byte tag', { payloadBase64: '', tag: 'x'.repeat(501) }, 400, 'tag'],
    ['a leaseTimestamp that is not a number', { payloadBase64: '', leaseTimestamp: '12abc' }, 400, 'leaseTimestamp'],
    ['a negative leaseTimestamp', { payloadBase64: '', leaseTimestamp: -1 }, 400, 'leaseTimestamp'],
    [
      'a leaseTimestamp 31 days ahead',
      { payloadBase64: '', leaseTimestamp: String(Date.now() * 1000 + 31 * 24 * 3600 * 1e6) },
      400,
      '',
    ],
    ['another queueName', { payloadBase64: '', queueName: 'other' }, 400, 'queueName'],
    [
      'a queueName of another project',
      { payloadBase64: '', queueName: 'projects/other/taskqueues/q' },
      400,
      'queueName',
    ],
  ])('refuses %s, inserting nothing', async (_label, body, status, message) => {
    const r = await h.call(tasks, { method: 'POST', body });
    expect(r.status).toBe(status);
    expect(r.json.error.code).toBe(status);
    expect(r.json.error.errors[0].domain).toBe('global');
    expect(r.json.error.message).toContain(message);
    expect(await h.t.sql(`select 1 from ${h.t.schema}.tasks`)).toHaveLength(0);
  });

  it('accepts queueName in short or full form, with any partition prefix', async () => {
    for (const [i, queueName] of ['q', 'projects/local/taskqueues/q', 'projects/s~local/taskqueues/q'].entries()) {
      expect((await h.insert({ id: `n${i}`, queueName, payloadBase64: '' })).queueName).toBe(
        'projects/local/taskqueues/q',
      );
    }
  });

  it('refuses malformed JSON, non-object bodies and oversize payloads without a 500', async () => {
    for (const body of ['{"payloadBase64": ', '[1,2]', '"text"', 'null']) {
      const r = await h.call(tasks, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      expect(r.status).toBe(400);
      expect(r.json.error.errors[0].reason).toBe('parseError');
    }
    const big = await h.call(tasks, {
      method: 'POST',
      body: { payloadBase64: Buffer.alloc(1024 * 1024 + 1).toString('base64') },
    });
    expect(big.status).toBe(413);
    expect(big.json.error.errors[0].reason).toBe('requestTooLarge');
    const max = await h.call(tasks, {
      method: 'POST',
      body: { payloadBase64: Buffer.alloc(1024 * 1024, 7).toString('base64') },
    });
    expect(max.status).toBe(200);
  });

  it('answers 409 for a name in use and for a name deleted recently', async () => {
    await h.insert({ id: 'dup', payloadBase64: '' });
    const again = await h.call(tasks, { method: 'POST', body: { id: 'dup', payloadBase64: '' } });
    expect(again.status).toBe(409);
    expect(again.json.error.errors[0].reason).toBe('duplicate');
    expect((await h.call(`${tasks}/dup`, { method: 'DELETE' })).status).toBe(200);
    const tombstoned = await h.call(tasks, { method: 'POST', body: { id: 'dup', payloadBase64: '' } });
    expect(tombstoned.status).toBe(409);
    expect(tombstoned.json.error.message).toContain('dup');
  });

  it('answers 409 for a generated name given back to insert, and 404 for reads and deletes of it once deleted', async () => {
    const live = await h.insert({ payloadBase64: '' });
    const gone = await h.insert({ payloadBase64: '' });
    expect((await h.call(`${tasks}/${gone.id}`, { method: 'DELETE' })).status).toBe(200);
    expect(await h.t.sql(`select name from ${h.t.schema}.task_tombstones`)).toEqual([]);
    for (const id of [live.id, gone.id]) {
      const copied = await h.call(tasks, { method: 'POST', body: { id, payloadBase64: '' } });
      expect(copied.status).toBe(409);
      expect(copied.json.error.errors[0].reason).toBe('duplicate');
      expect(copied.json.error.message).toContain(id);
    }
    for (const method of ['GET', 'DELETE']) {
      const r = await h.call(`${tasks}/${gone.id}`, { method });
      expect(r.status).toBe(404);
      expect(r.json.error.message).toContain('has been deleted');
    }
  });

  it('uses leaseTimestamp as the first time the task may be leased', async () => {
    const later = Date.now() * 1000 + 3600 * 1e6;
    const task = await h.insert({ id: 'later', payloadBase64: '', leaseTimestamp: String(later) });
    expect(task.leaseTimestamp).toBe(String(later));
    await h.insert({ id: 'now', payloadBase64: '', leaseTimestamp: 0 });
    expect((await h.lease('numTasks=10&leaseSecs=60')).map((t) => t.id)).toEqual(['now']);
  });

  it('gets a task with its payload, and 404s unknown and deleted names', async () => {
    await h.insert({ id: 't1', payloadBase64: b64('body'), tag: 'x' });
    const r = await h.call(`${tasks}/t1`);
    expect(r.status).toBe(200);
    expect(unb64(r.json.payloadBase64)).toBe('body');
    expect(r.json.tag).toBe('x');
    const unknown = await h.call(`${tasks}/nope`);
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.errors[0].reason).toBe('notFound');
    await h.call(`${tasks}/t1`, { method: 'DELETE' });
    const deleted = await h.call(`${tasks}/t1`);
    expect(deleted.status).toBe(404);
    expect(deleted.json.error.message).toContain('deleted');
  });

  it('refuses task names that could never exist with 400 before touching the database', async () => {
    for (const name of ['a%00b', 'a%2Fb', 'x'.repeat(501), '%E2%82%AC']) {
      const r = await h.call(`${tasks}/${name}`);
      expect(r.status).toBe(400);
      expect(r.json.error.message).toContain('not valid');
    }
  });
});
