import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { CloudTasksClient } from '@google-cloud/tasks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/create-app.js';
import { serviceConfig } from '../helpers/configs.js';
import { openTestService, type TestService } from '../helpers/engines.js';

/**
 * Google's Node client, @google-cloud/tasks 7.1.0, over REST (`fallback:
 * true`), unchanged, against the service on a loopback port: the queue
 * methods as the client sends them (`$alt=json;enum-encoding=int`, the
 * snake_case update mask).
 */
process.env.METADATA_SERVER_DETECTION = 'none';

describe('@google-cloud/tasks over REST', () => {
  let t: TestService;
  let server: ServerType;
  let client: CloudTasksClient;
  const parent = 'projects/local/locations/us-central1';

  beforeAll(async () => {
    t = await openTestService('postgres', serviceConfig([]), {
      open: { pushBaseUrl: 'http://127.0.0.1:9', dispatch: false },
    });
    const app = createApp({ service: t.service });
    server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    const port = (server.address() as AddressInfo).port;
    // An auth client that sends a fixed token (access control is off here): no Google credentials are looked for.
    const auth = {
      getRequestHeaders: async () => new Headers({ authorization: 'Bearer local' }),
      fetch: (url: string, init: RequestInit) =>
        fetch(url, {
          ...init,
          headers: { ...Object.fromEntries(new Headers(init.headers)), authorization: 'Bearer local' },
        }),
    };
    client = new CloudTasksClient({
      fallback: true,
      apiEndpoint: '127.0.0.1',
      port,
      protocol: 'http',
      auth: auth as never,
    });
  });
  afterAll(async () => {
    await client?.close();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    await t?.close();
  });

  it('creates, gets, lists, updates, pauses, resumes, purges and deletes a queue', async () => {
    const name = `${parent}/queues/from-node`;
    const [made] = await client.createQueue({
      parent,
      queue: { name, rateLimits: { maxDispatchesPerSecond: 10 }, retryConfig: { maxAttempts: 3 } },
    });
    expect(made.name).toBe(name);
    expect(made.rateLimits?.maxDispatchesPerSecond).toBe(10);
    expect(made.state).toBe('RUNNING');
    expect(t.service.getQueue('from-node').config.maxLeases).toBe(2);

    const [got] = await client.getQueue({ name });
    expect(got.retryConfig?.maxAttempts).toBe(3);
    const [queues] = await client.listQueues({ parent });
    expect(queues.map((q) => q.name)).toEqual([`${parent}/queues/default`, name]);

    const [updated] = await client.updateQueue({
      queue: { name, retryConfig: { maxAttempts: 7 } },
      updateMask: { paths: ['retry_config.max_attempts'] },
    });
    expect(updated.retryConfig?.maxAttempts).toBe(7);
    expect((await client.pauseQueue({ name }))[0].state).toBe('PAUSED');
    expect((await client.resumeQueue({ name }))[0].state).toBe('RUNNING');
    expect((await client.purgeQueue({ name }))[0].purgeTime).toBeTruthy();
    await client.deleteQueue({ name });
    await expect(client.getQueue({ name })).rejects.toMatchObject({ code: 5 });
    await expect(client.createQueue({ parent, queue: { name } })).rejects.toMatchObject({ code: 9 });
  });
});
