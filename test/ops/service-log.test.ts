import { afterAll, describe, expect, it } from 'vitest';
import { openTaskQueue, type OpenTaskQueue } from '../../src/open-task-queue.js';
import { serviceConfig, pullQueue } from '../helpers/configs.js';
import { freshSchema, testPgUrl } from '../helpers/engines.js';
import pg from 'pg';
import { captureLogger, LEVEL } from './ops-harness.js';

describe('the service logs through the logger it is given', () => {
  const opened: Array<{ service: OpenTaskQueue; schema: string }> = [];
  afterAll(async () => {
    const admin = new pg.Client({ connectionString: testPgUrl() });
    await admin.connect();
    for (const { service, schema } of opened) {
      await service.close();
      await admin.query(`drop schema if exists ${schema} cascade`);
    }
    await admin.end();
  });

  async function open(cleanupIntervalMs: number) {
    const { logger, lines } = captureLogger();
    const schema = freshSchema();
    const service = await openTaskQueue({
      config: serviceConfig([pullQueue('q')]),
      schema,
      database: { kind: 'postgres', url: testPgUrl(), poolSize: 2 },
      cleanupIntervalMs,
      logger,
    });
    opened.push({ service, schema });
    return { service, schema, lines };
  }

  it('says config loaded and migrations applied, then migrations current for the next process', async () => {
    const first = await open(0);
    expect(first.lines.find((line) => line.msg === 'config loaded')).toMatchObject({
      source: 'test-config',
      queues: 2,
    });
    expect(first.lines.find((line) => line.msg === 'migrations applied')).toMatchObject({ schema: first.schema });
    const { logger, lines } = captureLogger();
    const second = await openTaskQueue({
      config: serviceConfig([pullQueue('q')]),
      schema: first.schema,
      database: { kind: 'postgres', url: testPgUrl(), poolSize: 2 },
      cleanupIntervalMs: 0,
      logger,
    });
    await second.close();
    expect(lines.find((line) => line.msg.startsWith('migrations'))?.msg).toBe('migrations current');
  });

  it('logs each maintenance run with what it removed, and a failed run as a warning instead of swallowing it', async () => {
    const { schema, lines } = await open(100);
    const admin = new pg.Client({ connectionString: testPgUrl() });
    await admin.connect();
    try {
      const waitFor = async (msg: string) => {
        for (let i = 0; i < 100 && !lines.some((line) => line.msg === msg); i++)
          await new Promise((resolve) => setTimeout(resolve, 50));
        return lines.find((line) => line.msg === msg);
      };
      const run = await waitFor('maintenance run');
      expect(run).toMatchObject({ level: LEVEL.info, tombstonesRemoved: 0, deadLettersRemoved: 0, historyRemoved: 0 });
      expect(typeof run!.ms).toBe('number');
      await admin.query(`drop table ${schema}.lease_history cascade`);
      const failed = await waitFor('maintenance run failed');
      expect(failed?.level).toBe(LEVEL.warn);
      expect(JSON.stringify(failed?.err)).toContain('lease_history');
    } finally {
      await admin.end();
    }
  });
});
