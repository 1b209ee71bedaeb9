import { describe, expect, it } from 'vitest';
import { OverviewSampler } from '../../src/console/overview-sampler.js';
import { DEFAULT_SETTINGS } from '../../src/config/service-settings.js';
import type { QueueOverview } from '../../src/core/queue-overview.js';
import { startServer } from '../../src/server.js';
import { dropSchemas, freshSchema, testPgUrl } from '../helpers/engines.js';

describe('the console switch', () => {
  it('serves /console by default, and TASKQUEUE_CONSOLE=off leaves it out', async () => {
    for (const on of [true, false]) {
      const schema = freshSchema();
      const running = await startServer({
        settings: {
          ...DEFAULT_SETTINGS,
          databaseUrl: testPgUrl(),
          schema,
          host: '127.0.0.1',
          port: 0,
          poolSize: 2,
          console: on,
        },
        env: {},
        log: () => {},
      });
      try {
        const response = await fetch(`${running.url}/console`, { redirect: 'manual' });
        expect(response.status).toBe(on ? 303 : 404);
        if (on) expect(response.headers.get('location')).toBe('/console/sign-in');
        expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
      } finally {
        await running.close();
        await dropSchemas(schema);
      }
    }
  });
});

describe('overview sampler', () => {
  const row = (name: string, available: number): QueueOverview => ({
    name,
    mode: 'pull',
    paused: false,
    availableTasks: available,
    leasedTasks: 1,
    delayedTasks: 0,
    oldestAvailableAgeSeconds: null,
    leasedLastMinute: 2,
    leasedLastHour: 3,
    deadLetters: 0,
    storageBytes: 0,
    storageLimitBytes: null,
    retryLimit: null,
    leaseRate: null,
  });

  it('keeps the last hour of samples per queue and skips a failed read', async () => {
    let now = 1_000_000_000_000;
    let fail = false;
    let available = 0;
    const sampler = new OverviewSampler({
      read: async () => {
        if (fail) throw new Error('database away');
        return [row('q', available)];
      },
      keepSeconds: 3600,
      now: () => now,
    });
    for (let i = 0; i < 400; i++) {
      available = i;
      await sampler.sample();
      now += 10_000;
    }
    const series = await sampler.series('q');
    expect(series.at.length).toBe(361);
    expect(series.at.at(-1)! - series.at[0]!).toBe(3600);
    expect(series.available.at(-1)).toBe(399);
    fail = true;
    await sampler.sample();
    expect((await sampler.series('q')).at.length).toBe(361);
    expect(await sampler.series('unknown')).toEqual({ at: [], available: [], leased: [], delayed: [] });
  });
});
