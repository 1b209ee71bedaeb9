import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullQueue } from '../helpers/configs.js';
import { openConsoleHarness, type ConsoleHarness } from './console-harness.js';

/**
 * What a refresh tick costs on the wire, at the size the review measured:
 * 131 queues (130 and `default`), a queue page of 50 tasks. Before: every
 * tick downloaded the whole page uncompressed (94-156 KB). Now: brotli (or
 * gzip), and 304 with no body when nothing changed. The figures are printed
 * for docs/performance.md.
 */
describe('page weight of a refresh tick', () => {
  let h: ConsoleHarness;
  beforeAll(async () => {
    h = await openConsoleHarness('postgres', {
      auth: false,
      queues: Array.from({ length: 130 }, (_, i) => pullQueue(`queue-${String(i).padStart(3, '0')}`)),
    });
    const busy = h.t.service.getQueue('queue-007');
    await busy.add(
      Array.from({ length: 50 }, (_, i) => ({ name: `task-${i}`, payload: `{"order": ${i}, "lines": [1, 2, 3]}` })),
    );
    await busy.leaseTasks({ lease: 600, maxTasks: 10 });
  }, 120_000);
  afterAll(async () => h?.close());

  const get = (path: string, headers: Record<string, string> = {}) =>
    h.app.request(`http://localhost${path}`, {
      headers: { host: 'localhost', 'sec-fetch-site': 'same-origin', ...headers },
    });

  it.each([
    ['/console', 'the 131-queue list'],
    ['/console/queues/queue-007', 'a queue page of 50 tasks'],
  ])('%s (%s): compressed, and 304 when nothing changed', async (path, what) => {
    const plain = await get(path);
    expect(plain.status).toBe(200);
    const raw = (await plain.arrayBuffer()).byteLength;
    const br = await get(path, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.headers.get('vary')).toContain('accept-encoding');
    const brBytes = (await br.arrayBuffer()).byteLength;
    const gzip = await get(path, { 'accept-encoding': 'gzip' });
    expect(gzip.headers.get('content-encoding')).toBe('gzip');
    const gzipBytes = (await gzip.arrayBuffer()).byteLength;
    expect(brBytes).toBeLessThan(raw / 5);
    // The next tick sends the ETag back: the same figures, no body.
    const etag = br.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"/);
    const tick = await get(path, { 'accept-encoding': 'gzip, deflate, br', 'if-none-match': etag });
    expect(tick.status).toBe(304);
    expect((await tick.arrayBuffer()).byteLength).toBe(0);
    // A change on the server is a new page.
    await h.t.service.getQueue('queue-007').add({ name: `new-${raw}` });
    const changed = await get(path, { 'accept-encoding': 'gzip, deflate, br', 'if-none-match': etag });
    expect(changed.status).toBe(200);
    console.log(`${what}: ${raw} B plain, ${gzipBytes} B gzip, ${brBytes} B brotli; unchanged tick: 304, 0 B body`);
  });
});
