import { afterEach, describe, expect, it } from 'vitest';
import { isQueueError } from '../../src/core/errors.js';
import type { TaskSearch, TaskSearchPage } from '../../src/core/task-search.js';
import { prefixUpperBound } from '../../src/store/search-tasks.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { ENGINES, openTestService, type TestService } from '../helpers/engines.js';

describe('prefixUpperBound', () => {
  it('is the least string past every string with the prefix, in code point order', () => {
    expect(prefixUpperBound('abc')).toBe('abd');
    expect(prefixUpperBound('a-')).toBe('a.');
    expect(prefixUpperBound('é')).toBe('ê');
    expect(prefixUpperBound('x\u{d7ff}')).toBe('x\u{e000}');
    expect(prefixUpperBound('x\u{10ffff}')).toBe('y');
    expect(prefixUpperBound('\u{10ffff}')).toBeNull();
  });
});

describe.each(ENGINES)('searching tasks on %s', (engine) => {
  let t: TestService;
  afterEach(async () => t?.close());

  /** Tasks as rows: `etaMinutes` from now (negative: due), leased `retries` times, a tag, an error, a payload. */
  const rows = async (
    list: { name: string; tag?: string; error?: string; payload?: string; etaMinutes?: number; retries?: number }[],
  ) => {
    for (const row of list) {
      await t.sql(
        `insert into ${t.schema}.tasks (queue_id, name, eta, retry_count, tag, payload, last_error)
         select id, $1, now() + $2 * interval '1 minute', $3, $4, convert_to($5, 'UTF8'), $6
           from ${t.schema}.queues where name = 'q'`,
        [row.name, row.etaMinutes ?? -1, row.retries ?? 0, row.tag ?? null, row.payload ?? '', row.error ?? null],
      );
    }
  };
  const open = async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]));
    await rows([
      { name: 'invoice-1', tag: 'billing-eu', payload: '{"customer":"Ada"}', etaMinutes: -5 },
      {
        name: 'invoice-2',
        tag: 'billing-us',
        payload: '{"customer":"Bob"}',
        etaMinutes: -4,
        retries: 2,
        error: 'HTTP 502 Bad Gateway',
      },
      { name: 'invoice_3', tag: 'billing_x', payload: 'Grüße, Ada', etaMinutes: 10, retries: 1 },
      { name: 'mail-1', tag: 'mail', payload: '\u00ff binary', etaMinutes: 20 },
      { name: 'mail-2', payload: 'plain', etaMinutes: -3, retries: 3, error: 'timeout after 30 s' },
    ]);
    return t.service.getQueue('q');
  };
  const names = (page: TaskSearchPage) => page.tasks.map((task) => task.name);

  it('finds by name prefix, tag, tag prefix, state, error text and payload text', async () => {
    const q = await open();
    const find = async (search: TaskSearch) => names(await q.searchTasks(search));
    expect(await find({})).toEqual(['invoice-1', 'invoice-2', 'mail-2', 'invoice_3', 'mail-1']);
    // Name order; "_" is a character, not LIKE's any-character.
    expect(await find({ namePrefix: 'invoice' })).toEqual(['invoice-1', 'invoice-2', 'invoice_3']);
    expect(await find({ namePrefix: 'invoice_' })).toEqual(['invoice_3']);
    expect(await find({ tag: 'mail' })).toEqual(['mail-1']);
    // Tag, then ETA order.
    expect(await find({ tagPrefix: 'billing' })).toEqual(['invoice-1', 'invoice-2', 'invoice_3']);
    expect(await find({ tagPrefix: 'billing_' })).toEqual(['invoice_3']);
    expect(await find({ state: 'available' })).toEqual(['invoice-1', 'invoice-2', 'mail-2']);
    expect(await find({ state: 'leased' })).toEqual(['invoice_3']);
    expect(await find({ state: 'delayed' })).toEqual(['mail-1']);
    expect(await find({ state: 'failing' })).toEqual(['invoice-2', 'mail-2']);
    expect(await find({ errorText: 'http 502' })).toEqual(['invoice-2']);
    expect(await find({ payloadText: 'Ada' })).toEqual(['invoice-1', 'invoice_3']);
    expect(await find({ payloadText: 'Grüße' })).toEqual(['invoice_3']);
    // Conditions combine; a name prefix walks the names, the tag is then checked on each.
    expect(await find({ namePrefix: 'invoice', tagPrefix: 'billing-', payloadText: 'Bob' })).toEqual(['invoice-2']);
    expect(await find({ tagPrefix: 'billing', state: 'failing', errorText: '502' })).toEqual(['invoice-2']);
    expect(await find({ namePrefix: 'zzz' })).toEqual([]);
  });

  it('pages on with its cursor, and ends with none', async () => {
    const q = await open();
    const first = await q.searchTasks({ limit: 2 });
    expect(names(first)).toEqual(['invoice-1', 'invoice-2']);
    expect(first.bounded).toBe(false);
    expect(first.next).not.toBeNull();
    const second = await q.searchTasks({ limit: 2, cursor: first.next! });
    expect(names(second)).toEqual(['mail-2', 'invoice_3']);
    const third = await q.searchTasks({ limit: 2, cursor: second.next! });
    expect(names(third)).toEqual(['mail-1']);
    expect(third.next).toBeNull();
    // A page that holds the last match exactly ends the search: no empty page after it.
    const exact = await q.searchTasks({ tagPrefix: 'billing', limit: 3 });
    expect(names(exact)).toEqual(['invoice-1', 'invoice-2', 'invoice_3']);
    expect(exact.next).toBeNull();
    const byName = await q.searchTasks({ namePrefix: 'invoice', limit: 1 });
    const rest = await q.searchTasks({ namePrefix: 'invoice', limit: 5, cursor: byName.next! });
    expect(names(rest)).toEqual(['invoice-2', 'invoice_3']);
    const byTag = await q.searchTasks({ tagPrefix: 'billing', limit: 2 });
    expect(names(await q.searchTasks({ tagPrefix: 'billing', cursor: byTag.next! }))).toEqual(['invoice_3']);
  });

  it('reads at most its scan limit of candidates, and says so, with the cursor to go on from', async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]));
    // 30 tasks in ETA order t00..t29; only t05 and t25 carry the error.
    await t.sql(
      `insert into ${t.schema}.tasks (queue_id, name, eta, payload, last_error)
       select q.id, 't' || lpad(i::text, 2, '0'), now() - interval '1 hour' + i * interval '1 second', '\\x'::bytea,
              case when i in (5, 25) then 'disk full' end
         from ${t.schema}.queues q, generate_series(0, 29) i where q.name = 'q'`,
    );
    const q = t.service.getQueue('q');
    const first = await q.searchTasks({ errorText: 'disk', scanLimit: 10 });
    expect(first).toMatchObject({ scanned: 10, bounded: true });
    expect(names(first)).toEqual(['t05']);
    const second = await q.searchTasks({ errorText: 'disk', scanLimit: 10, cursor: first.next! });
    expect(second).toMatchObject({ tasks: [], scanned: 10, bounded: true });
    const third = await q.searchTasks({ errorText: 'disk', scanLimit: 10, cursor: second.next! });
    // Exactly ten candidates remained: the walk ends here, not bounded.
    expect(third).toMatchObject({ scanned: 10, bounded: false, next: null });
    expect(names(third)).toEqual(['t25']);
    // A full page stops the read early.
    const full = await q.searchTasks({ limit: 3, scanLimit: 10 });
    expect(full).toMatchObject({ scanned: 3, bounded: false });
    expect(names(full)).toEqual(['t00', 't01', 't02']);
  });

  it('refuses a bad filter or a cursor of another search with INVALID_REQUEST naming the field', async () => {
    const q = await open();
    const refused = async (search: TaskSearch, field: string, code = 'INVALID_REQUEST') =>
      expect(q.searchTasks(search)).rejects.toSatisfy(
        (error) => isQueueError(error, code as 'INVALID_REQUEST') && error.details.field === field,
      );
    await refused({ namePrefix: 'no spaces' }, 'namePrefix');
    await refused({ tag: 'a', tagPrefix: 'b' }, 'tagPrefix');
    await refused({ state: 'gone' as 'leased' }, 'state');
    await refused({ errorText: 'x'.repeat(501) }, 'errorText');
    await refused({ payloadText: 'a\u0000b' }, 'payloadText');
    await refused({ limit: 101 }, 'limit');
    await refused({ scanLimit: 10_001 }, 'scanLimit');
    await refused({ cursor: 'not-a-cursor' }, 'cursor');
    await refused({ tag: '\u0000' }, 'tag', 'INVALID_TAG');
    const byName = await q.searchTasks({ namePrefix: 'invoice', limit: 1 });
    await refused({ limit: 1, cursor: byName.next! }, 'cursor');
  });
});
