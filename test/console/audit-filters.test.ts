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

  it("names a bulk entry's tasks in a list that opens without script, saying how many it did not keep", async () => {
    h = await openConsoleHarness('postgres');
    await h.audit.record({
      actor: 'alice@example.com',
      action: 'redrive',
      queue: 'jobs',
      count: 2,
      names: ['a-1', 'b-2'],
    });
    await h.audit.record({
      actor: 'alice@example.com',
      action: 'run_now',
      queue: 'jobs',
      count: 5,
      names: ['<x>', 'c-3'],
    });
    await h.audit.record({ actor: 'alice@example.com', action: 'delete_task', queue: 'jobs', target: 'one', count: 1 });
    const b = browser(h);
    await b.signIn(ADMIN);
    const html = (await b.send('/console/audit')).text;
    const lists = [...html.matchAll(/<details class="audit-names"><summary>([^<]*)<\/summary><ul>(.*?)<\/ul>/g)].map(
      (match) => [match[1], [...match[2]!.matchAll(/<li>([^<]*)<\/li>/g)].map((li) => li[1])],
    );
    expect(lists).toEqual([
      ['2 tasks of 5', ['&lt;x&gt;', 'c-3']],
      ['2 tasks', ['a-1', 'b-2']],
    ]);
    expect(html).toContain('and 3 more, not named');
    expect(html).toMatch(/data-label="Task">one</);
  });
});
