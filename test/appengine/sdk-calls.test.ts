import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startOpsServer, writeQueueYaml, type OpsServer } from '../ops/ops-harness.js';
import { appEngineSdk } from './sdk-home.js';

const sdk = appEngineSdk();
/** The system's python3 (its own site packages can break the SDK's imports; `-S` leaves them out). */
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
if (sdk.dir === null) console.warn(`App Engine SDK tests skipped: ${sdk.reason}`);

/** What sdk-calls.py reports. */
type Outcome = Record<string, unknown>;

describe.skipIf(sdk.dir === null)('the App Engine SDK against /rpc_http', () => {
  let server: OpsServer | null = null;
  let python: ChildProcess | null = null;
  afterAll(async () => {
    // A failed assertion leaves the script waiting: it goes with the test.
    if (python !== null && python.exitCode === null) python.kill();
    await server?.close();
  });

  it('serves every taskqueue call the SDK makes, its errors as the SDK raises them, and deferred end to end', async () => {
    const child = spawn(PYTHON, ['-S', join(import.meta.dirname, 'sdk-calls.py')], {
      env: { PATH: process.env['PATH'] ?? '', AE_SDK: sdk.dir!, HOME: process.env['HOME'] ?? '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    python = child;
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const next = async (): Promise<string> => {
      const line = await lines.next();
      if (line.done) throw new Error(`sdk-calls.py ended early:\n${stderr}`);
      return line.value;
    };
    const wsgiPort = Number((await next()).split(' ')[1]);
    const yaml = [
      'queue:',
      '- name: default',
      '  rate: 50/s',
      `  target_url: http://127.0.0.1:${wsgiPort}`,
      '- name: pull-q',
      '  mode: pull',
      '- name: pull-two',
      '  mode: pull',
      '',
    ].join('\n');
    server = await startOpsServer({ settings: { configPath: writeQueueYaml(yaml), appEngineApiPort: 0 } });
    const apiUrl = new URL(server.running.appEngineApiUrl!);
    expect(
      server.lines.some((l) => String(l.msg).startsWith('App Engine API (POST /rpc_http) listening on 127.0.0.1:')),
    ).toBe(true);
    child.stdin.write(`API ${apiUrl.port}\n`);
    const result = (await next()).replace(/^RESULT /, '');
    const out = JSON.parse(result) as Outcome;

    const chosen = (out['added'] as string[])[2]!;
    expect(out['added']).toEqual(['t1', 't2', chosen]);
    expect(chosen).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(out['enqueued']).toEqual([true, true, true]);
    expect(out['single']).toBe('t4');
    expect(out['taken']).toBe('TaskAlreadyExistsError');
    expect(out['taken_enqueued']).toEqual([false, true]);
    expect(out['red']).toEqual(['t1', 't2']);
    expect(out['red_payload']).toEqual(['one', 'two']);
    expect(out['grouped']).toEqual(['blue']);
    expect(out['rest']).toEqual(['t4', 't5']);
    expect(out['retry_count']).toBe(1);
    expect(out['modified']).toBe(true);
    expect(out['lease_expired']).toBe('TaskLeaseExpiredError');
    expect(out['deleted']).toEqual([true, false]);
    expect(out['tombstoned']).toBe('TombstonedTaskError');
    expect(out['unknown_queue']).toBe('UnknownQueueError');
    expect(out['push_lease']).toBe('InvalidQueueModeError');
    expect(out['pull_to_push']).toBe('InvalidQueueModeError');
    expect(out['bad_name']).toBe('InvalidTaskNameError');
    expect(out['too_many']).toBe('TooManyTasksError');
    const [code, detail] = out['transactional'] as [number, string];
    expect(code).toBe(13);
    expect(detail).toMatch(/transaction.*cannot join; nothing was added/);
    expect(out['other_service']).toBe('CallNotFoundError');
    expect(out['stats_tasks']).toBe(4);
    expect(out['stats_oldest']).toBe(true);
    expect(out['queues']).toEqual([
      ['default', 0],
      ['pull-q', 1],
      ['pull-two', 1],
    ]);
    expect(out['query_tasks']).toEqual([chosen, 't1', 't4', 't5'].sort());
    expect(out['fetch_task']).toEqual(['00ff']);
    expect(out['fetch_missing']).toBe('Error');
    expect(out['paused_lease']).toBe('QueuePausedError');
    expect(out['delete_queue']).toBe('PermissionDeniedError');
    expect(out['storage_limit']).toBe('PermissionDeniedError');
    expect(out['push_task']).toEqual({
      url: '/hook?x=1',
      method: 4,
      headers: [
        ['X-AppEngine-Current-Namespace', ''],
        ['X-Mine', 'v'],
      ],
      body: 'body',
      countdown: 60,
    });
    expect(out['push_deleted']).toBe(true);
    expect(out['purged_left']).toBe(0);
    expect(out['deferred_ran']).toBe(true);
    expect(out['deferred_word']).toBe('hello');
    expect(out['deferred_namespace']).toBe('tenant-a');
    expect(out['deferred_headers']).toEqual(
      expect.arrayContaining([
        'HTTP_X_APPENGINE_CURRENT_NAMESPACE',
        'HTTP_X_APPENGINE_QUEUENAME',
        'HTTP_X_APPENGINE_TASKNAME',
        'HTTP_X_APPENGINE_TASKRETRYCOUNT',
      ]),
    );

    // One store: the same tasks over REST v1beta2.
    const listed = (await (await fetch(`${server.url}${server.path('pull-q')}/tasks`)).json()) as {
      items?: { id: string; payloadBase64: string }[];
    };
    expect((listed.items ?? []).map((t) => t.id).sort()).toEqual([chosen, 't1', 't4', 't5'].sort());
    // Operator actions are audited under the App Engine source.
    const audit = await server.sql<{ action: string; queue: string }>(
      `select action, queue from ${server.schema}.audit_log where source = 'appengine' order by id`,
    );
    expect(audit).toEqual([
      { action: 'pause', queue: 'pull-q' },
      { action: 'resume', queue: 'pull-q' },
      { action: 'purge', queue: 'pull-two' },
    ]);
    child.stdin.end();
    if (child.exitCode === null) await new Promise((done) => child.once('exit', done));
  }, 120_000);
});
