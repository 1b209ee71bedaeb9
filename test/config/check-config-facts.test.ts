import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { checkConfigCommand } from '../../src/cli/commands/check-config.js';
import { settingsFromEnvironment } from '../../src/config/service-settings.js';

/**
 * check-config says what each queue does, in its own mode's terms: a push
 * queue's rate, bucket, requests in flight, where its tasks go (its target
 * routed or not), age limit, backoff and retries; a retry limit of 0 as App
 * Engine means it. It used to print push queues in pull terms and no target.
 */
describe('check-config describes each queue in its own terms', () => {
  const dir = mkdtempSync(join(tmpdir(), 'taskqueue-check-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const check = async (files: Record<string, string>, env: Record<string, string> = {}, cron?: string) => {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    const code = await checkConfigCommand(
      [join(dir, 'queue.yaml')],
      settingsFromEnvironment(env),
      out,
      cron === undefined ? {} : { cron: join(dir, cron) },
    );
    return { code, text };
  };

  it('push queues: rate, bucket, max concurrent, target and URL, retries, age limit and backoff; pull queues: leases', async () => {
    const { code, text } = await check(
      {
        'queue.yaml': [
          'application: my-app',
          'queue:',
          '- name: mail',
          '  rate: 20/s',
          '  bucket_size: 40',
          '  max_concurrent_requests: 5',
          '  target: v2.worker',
          '  retry_parameters: {task_retry_limit: 0}',
          '- name: reports',
          '  rate: 1/s',
          '  target: batch',
          '  retry_parameters: {task_retry_limit: 3, task_age_limit: 2h, min_backoff_seconds: 5, max_backoff_seconds: 60, max_doublings: 2}',
          '- name: pulled',
          '  mode: pull',
          '  retry_parameters: {task_retry_limit: 0}',
          '- name: pulled-twice',
          '  mode: pull',
          '  retry_parameters: {task_retry_limit: 2}',
          '',
        ].join('\n'),
      },
      { TASKQUEUE_TARGET_URLS: 'worker=http://worker.internal:8080', TASKQUEUE_PUSH_BASE_URL: 'http://app.internal' },
    );
    expect(code).toBe(0);
    expect(text).toContain(
      '  mail: push, rate 20/s, bucket size 40, max concurrent 5, target v2.worker to http://worker.internal:8080 (TASKQUEUE_TARGET_URLS), no retry (one attempt), backoff 0.1-3600 s, 16 doubling(s)\n',
    );
    expect(text).toContain(
      '  reports: push, rate 1/s, bucket size 5, max concurrent unlimited, target batch has no route in TASKQUEUE_TARGET_URLS: to http://app.internal, up to 3 retries (4 attempts), or more while under 7200 s since the first attempt, backoff 5-60 s, 2 doubling(s)\n',
    );
    expect(text).toContain(
      '  pulled: pull, retry limit 0: never leased, each task goes to the dead letters at its first lease attempt (App Engine), lease rate 10/1s\n',
    );
    expect(text).toContain('  pulled-twice: pull, at most 2 lease(s), lease rate 10/1s\n');
  });

  it("a cron job's target: routed, or said to have no route", async () => {
    const { text } = await check(
      {
        'queue.yaml': 'queue:\n- name: jobs\n  mode: pull\n',
        'cron.yaml':
          'cron:\n- url: /a\n  schedule: every 5 minutes\n  target: worker\n- url: /b\n  schedule: every 5 minutes\n  target: reports\n',
      },
      { TASKQUEUE_TARGET_URLS: 'worker=http://worker.internal:8080' },
      'cron.yaml',
    );
    expect(text).toMatch(/: \/a "every 5 minutes", target worker to http:\/\/worker.internal:8080\n/);
    expect(text).toMatch(
      /: \/b "every 5 minutes", target reports has no route in TASKQUEUE_TARGET_URLS: to its queue's URL\n/,
    );
  });
});
