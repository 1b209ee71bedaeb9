import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Environment } from '../../src/config/service-settings.js';
import { settingsFromEnvironment } from '../../src/config/service-settings.js';
import { startServer } from '../../src/server.js';
import { cli, jsonLines } from './cli-harness.js';

/**
 * The embedded engine (no DATABASE_URL): the commands open the data
 * directory themselves while it is free; while a server holds it (PGlite
 * admits one process), they go through that server (by themselves when an
 * administrator is named, else with --url and a token the server mints).
 */
describe('operator commands on the embedded engine', () => {
  let dir: string;
  let env: Environment;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'taskqueue-cli-embedded-'));
    writeFileSync(join(dir, 'queue.yaml'), 'queue:\n- name: work\n  mode: pull\n  lease_rate: unlimited\n');
    env = {
      TASKQUEUE_DATA_DIR: join(dir, 'data'),
      TASKQUEUE_CONFIG: join(dir, 'queue.yaml'),
      TASKQUEUE_ADMINS: 'admin@example.com',
      PORT: '0',
      HOST: '127.0.0.1',
    };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('works on a free data directory, and through the server that holds it', { timeout: 180_000 }, async () => {
    // Before any server ran, and without the configuration, there is nothing to act on; the error says how.
    const { TASKQUEUE_CONFIG: _config, ...withoutConfig } = env;
    const empty = await cli(['queues'], withoutConfig);
    expect(empty.code).toBe(1);
    expect(empty.err).toContain('the embedded database holds no taskqueue tables');
    expect(empty.err).toContain('TASKQUEUE_CONFIG');

    // A server writes the queues to the directory, then stops.
    const first = await startServer({ settings: settingsFromEnvironment(env), env, log: () => {} });
    await first.close();

    expect((await cli(['add', 'work', 'offline', '--name', 'o1'], env)).code).toBe(0);
    expect(jsonLines((await cli(['queues', '--json'], env)).out).find((q) => q.name === 'work')).toMatchObject({
      availableTasks: 1,
    });

    const server = await startServer({ settings: settingsFromEnvironment(env), env, log: () => {} });
    try {
      // With an administrator named, the CLI goes through the server by itself (a token from its local endpoint).
      const through = await cli(['queues', '--json'], env);
      expect(through.code).toBe(0);
      expect(jsonLines(through.out).find((q) => q.name === 'work')).toMatchObject({ availableTasks: 1 });
      expect((await cli(['pause', 'work'], env)).code).toBe(0);
      expect(await server.service.getQueue('work').isPaused()).toBe(true);
      expect((await cli(['resume', 'work'], env)).code).toBe(0);
      // The cron commands too (issue 30: they refused anything but a database, naming DATABASE_URL, which is not set here).
      const cron = await cli(['cron', 'list'], env);
      expect(cron.err).toBe('');
      expect(cron.out).toContain('no cron jobs recorded');
      expect((await cli(['cron', 'run', 'nope'], env)).err).toContain('no cron job named "nope"');

      // Without one, it says how.
      const { TASKQUEUE_ADMINS: _admins, ...withoutAdmins } = env;
      const refused = await cli(['queues'], withoutAdmins);
      expect(refused.code).toBe(1);
      expect(refused.err).toContain('admits one process at a time');
      // The server's own address, not a default port it may not listen on.
      expect(refused.err).toContain(`--url ${server.url} `);

      const token = await cli(['token', '--email', 'admin@example.com'], env);
      expect(token.code).toBe(0);
      const remote = { ...env, TASKQUEUE_URL: server.url, TASKQUEUE_TOKEN: token.out.trim() };
      expect(jsonLines((await cli(['lease', 'work'], remote)).out)).toEqual([expect.objectContaining({ name: 'o1' })]);
      expect((await cli(['pause', 'work'], remote)).code).toBe(0);
      expect(await server.service.getQueue('work').isPaused()).toBe(true);
    } finally {
      await server.close();
    }
  });
});
