import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueueError } from '../../src/core/errors.js';
import { createApp } from '../../src/http/create-app.js';
import type { OpenTaskQueue } from '../../src/open-task-queue.js';
import { openHarness, reply, type Harness, type Loose } from './harness.js';

const SPEC = JSON.parse(
  readFileSync(new URL('../../src/http/discovery/taskqueue-v1beta2.json', import.meta.url), 'utf8').toString(),
);

describe('discovery, OpenAPI and health', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness('postgres');
  });
  afterAll(async () => h.close());

  it('serves the discovery document unchanged but for its root URL (from the Host, or publicUrl) and the push fields of Task', async () => {
    const r = await h.app.request('http://tq.internal:8080/discovery/v1/apis/taskqueue/v1beta2/rest');
    const doc = (await reply(r)).json;
    expect(doc.rootUrl).toBe('http://tq.internal:8080/');
    expect(doc.baseUrl).toBe('http://tq.internal:8080/taskqueue/v1beta2/projects/');
    const { url, httpMethod, headers, dispatchDeadlineSeconds, ...taskProperties } = doc.schemas.Task.properties;
    expect([url.type, httpMethod.type, headers.type, dispatchDeadlineSeconds.type]).toEqual([
      'string',
      'string',
      'array',
      'number',
    ]);
    const unchanged = {
      ...doc,
      rootUrl: SPEC.rootUrl,
      baseUrl: SPEC.baseUrl,
      schemas: { ...doc.schemas, Task: { ...doc.schemas.Task, properties: taskProperties } },
    };
    expect(unchanged).toEqual(SPEC);

    const configured = createApp({ service: h.t.service, publicUrl: 'https://queues.example.com' });
    const fixed = (await reply(await configured.request('http://127.0.0.1/discovery/v1/apis/taskqueue/v1beta2/rest')))
      .json;
    expect(fixed.rootUrl).toBe('https://queues.example.com/');
  });

  it('serves an OpenAPI 3.1 document of the same eight methods, plus PUT', async () => {
    const doc = (await h.call('/openapi.json')).json;
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.values(doc.paths).flatMap((item: Loose) =>
      Object.values(item).map((op: Loose) => op.operationId),
    );
    const discoveryIds = Object.values(SPEC.resources).flatMap((r: Loose) =>
      Object.values(r.methods).map((m: Loose) => m.id),
    );
    expect(operations.sort()).toEqual([...discoveryIds, 'taskqueue.tasks.replace'].sort());
    const leaseOp = doc.paths['/taskqueue/v1beta2/projects/{project}/taskqueues/{taskqueue}/tasks/lease'].post;
    const numTasks = leaseOp.parameters.find((p: Loose) => p.name === 'numTasks');
    expect(numTasks).toMatchObject({
      in: 'query',
      required: true,
      schema: { type: 'integer', minimum: 1, maximum: 1000 },
    });
    expect(leaseOp.parameters.some((p: Loose) => p.name === 'waitSecs')).toBe(true);
    // The optional JSON body of a lease (early discovery clients send one).
    expect(leaseOp.requestBody).toMatchObject({
      required: false,
      content: { 'application/json': { schema: { properties: { lease_secs: {} } } } },
    });
    expect(doc.components.schemas.Task.properties.leaseTimestamp).toMatchObject({ type: 'string', format: 'int64' });
    // Every $ref resolves.
    const refs = JSON.stringify(doc).match(/"\$ref":"#\/components\/[^"]+"/g) ?? [];
    for (const ref of refs) {
      const path = ref.slice(8, -1).split('/').slice(1);
      expect(path.reduce((node: Loose, key) => node?.[key], doc)).toBeDefined();
    }
  });

  it('/healthz is 200 after a database round trip', async () => {
    const r = await h.call('/healthz');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ status: 'ok', engine: 'postgres' });
  });

  it('/healthz is 503 in the error envelope, with Retry-After, when the database is down', async () => {
    const down = {
      project: 'local',
      engine: 'postgres',
      store: { ping: () => Promise.reject(new QueueError('TRANSIENT_ERROR', 'connect ECONNREFUSED 127.0.0.1:5432')) },
    } as unknown as OpenTaskQueue;
    const r = await reply(await createApp({ service: down }).request('/healthz'));
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('1');
    expect(r.json.error).toMatchObject({ code: 503, errors: [{ domain: 'global', reason: 'backendError' }] });
    expect(r.text).not.toContain('5432');
  });

  it('answers 503 with Retry-After when the database fails during a method, and never leaks the cause', async () => {
    const broken = {
      project: 'local',
      engine: 'postgres',
      config: h.t.service.config,
      getQueue: (name: string) => {
        const queue = h.t.service.getQueue(name);
        return {
          config: queue.config,
          name: queue.name,
          getTask: () =>
            Promise.reject(
              new QueueError('DEADLINE_EXCEEDED', 'the database did not answer in time; back off and retry'),
            ),
          listTasks: () => Promise.reject(new TypeError('secret internals at /src/store/x.ts:12')),
        };
      },
    } as unknown as OpenTaskQueue;
    const app = createApp({ service: broken });
    const slow = await reply(await app.request('/taskqueue/v1beta2/projects/local/taskqueues/q/tasks/x'));
    expect(slow.status).toBe(503);
    expect(slow.headers.get('retry-after')).toBe('1');
    const bug = await reply(await app.request('/taskqueue/v1beta2/projects/local/taskqueues/q/tasks'));
    expect(bug.status).toBe(500);
    expect(bug.json).toEqual({
      error: {
        errors: [{ domain: 'global', reason: 'internalError', message: 'Internal error' }],
        code: 500,
        message: 'Internal error',
      },
    });
  });
});
