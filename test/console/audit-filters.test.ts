import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN, browser, openConsoleHarness, type ConsoleHarness } from './console-harness.js';

describe('the audit page: readable actions, partial filters', () => {
  let h: ConsoleHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('words actions for people and filters by queue prefix, part of the actor, and a UTC time range', async () => {
    h = await openConsoleHarness('postgres');
    await h.audit.record({ actor: 'alice@example.com', action: 'delete_dead_letters', queue: 'jobs', count: 3 });
    await h.audit.record({ actor: 'bob@example.com', action: 'pause', queue: 'emails', count: 0 });
    await h.t.sql(`update ${h.t.schema}.audit_log set at = '2026-01-01T10:00:00Z' where actor like 'bob%'`);
    const b = browser(h);
    await b.signIn(ADMIN);
    const actions = (html: string) => [...html.matchAll(/data-label="Action">([^<]*)</g)].map((match) => match[1]);
    const all = await b.send('/console/audit');
    expect(actions(all.text)).toEqual(['pause', 'delete dead letters']);
    expect(all.text).toContain('<option value="delete_dead_letters">delete dead letters</option>');
    expect(actions((await b.send('/console/audit?queue=job')).text)).toEqual(['delete dead letters']);
    expect(actions((await b.send('/console/audit?actor=BOB')).text)).toEqual(['pause']);
    expect(actions((await b.send('/console/audit?until=2026-01-01T11%3A00')).text)).toEqual(['pause']);
    expect(actions((await b.send('/console/audit?since=2026-01-01T11%3A00')).text)).toEqual(['delete dead letters']);
  });
});
