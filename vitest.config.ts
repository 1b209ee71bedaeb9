import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Tests that need no database: parsers, fields, validation, auth verifiers,
 * the core against an in-memory store. They run with PostgreSQL down
 * (`npx vitest run --project unit`). Every other test file is in the `db`
 * project, behind the global setup that checks PostgreSQL answers; a test
 * that needs the database but sits in `unit` fails at `testPgUrl()`.
 * Without PostgreSQL the unit files still run; every db file then fails with
 * the reason and what to do (test/helpers/global-setup.ts).
 */
const UNIT = [
  'test/core/**/*.test.ts',
  'test/config/**/*.test.ts',
  // test/cron/fire/ fires jobs through the database: the db project.
  'test/cron/*.test.ts',
  'test/cloudtasks/**/*.test.ts',
  'test/cli/cron-command.test.ts',
  'test/auth/{acl-matrix,api-keys,auth-settings,bearer-token,introspection,jwks-cache,lru-cache,scopes,token-matrix}.test.ts',
  'test/http/{batch-parse,fields,parsing}.test.ts',
  'test/store/{data-dir-lock,migrations-module,statement-name}.test.ts',
  'test/cli/printable.test.ts',
  'test/lint/**/*.test.ts',
  'test/sql-api/{sqlstates-doc,generated-functions}.test.ts',
  'test/suite/{without-postgres,bin-entry,install-warnings,doc-diaries}.test.ts',
];

export default defineConfig({
  test: {
    pool: 'forks',
    // PGlite costs ~0.5 GB and 3-4 s per test file; two workers fit 2 cores.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits for a condition; its default deadline (1 s) is a
    // short clock that a busy 2-core machine overruns. This is an upper
    // bound: a poll returns as soon as its condition holds.
    expect: { poll: { timeout: 30_000 } },
    projects: [
      {
        extends: true,
        // src/store/migrate/migrations.ts is generated from sql/, not committed.
        test: { name: 'unit', include: UNIT, globalSetup: ['test/helpers/generated-sql-module.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'db',
          include: ['test/**/*.test.ts'],
          // test/citus/ runs on a Citus cluster: vitest.citus.config.ts (npm run test:citus).
          exclude: [...configDefaults.exclude, ...UNIT, 'test/citus/**'],
          globalSetup: ['test/helpers/generated-sql-module.ts', 'test/helpers/global-setup.ts'],
          setupFiles: ['test/helpers/require-postgres.ts'],
        },
      },
    ],
  },
});
