import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpsServer, type OpsServer } from './ops-harness.js';

describe('GET /readyz', () => {
  let s: OpsServer;
  beforeAll(async () => {
    s = await startOpsServer();
  });
  afterAll(async () => {
    await s.close();
  });

  it('is 200 when the database answers, migrations are current and the config is loaded', async () => {
    const r = await fetch(`${s.url}/readyz`);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ status: 'ready' });
    expect(r.headers.get('cache-control')).toBe('no-store');
  });

  it('is 503 with reason "migrations" when the schema lacks a migration this server needs; /healthz stays 200', async () => {
    const [latest, previous] = await s.sql<{ version: number; name: string }>(
      `select version, name from ${s.schema}.schema_migrations order by version desc limit 2`,
    );
    await s.sql(`delete from ${s.schema}.schema_migrations where version = $1`, [latest!.version]);
    try {
      const r = await fetch(`${s.url}/readyz`);
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toBe('1');
      const body = (await r.json()) as { status: string; reason: string; message: string };
      expect(body).toMatchObject({ status: 'not ready', reason: 'migrations' });
      // The one before it: the schema is now at that migration.
      expect(body.message).toContain(`migration ${previous!.version},`);
      expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    } finally {
      await s.sql(`insert into ${s.schema}.schema_migrations (version, name) values ($1, $2)`, [
        latest!.version,
        latest!.name,
      ]);
    }
    expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
  });
});
