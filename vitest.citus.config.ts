import { defineConfig } from 'vitest/config';

/**
 * The Citus suite (`npm run test:citus`): test/citus/ against a coordinator
 * and two workers (scripts/citus/cluster.sh start; TASKQUEUE_CITUS_URL names
 * another coordinator). Every test there opens the service through the same
 * helpers as the db project, with TEST_DATABASE_URL pointed at the
 * coordinator, so `taskqueue migrate` sets each test's schema up on Citus.
 * One file at a time: the three nodes share the machine.
 */
/**
 * Tests of the default suite that run here too, unchanged, on PostgreSQL
 * only (ENGINES in test/helpers/engines.ts): each exercises operations
 * through the service as a user would, so on the coordinator they prove
 * the operation on Citus.
 */
const STORE_TESTS_ON_CITUS = [
  'test/store/smoke.test.ts',
  'test/store/add.test.ts',
  'test/store/modify-delete.test.ts',
  // lease, queue-controls and dead-letters backdate with `eta - interval`, which Citus refuses in an UPDATE (a STABLE
  // function of a column), and lease locks a task by name alone; test/citus/ covers those
  // operations with Citus' rules.
  'test/store/transaction.test.ts',
  'test/store/retry-limit-zero.test.ts',
  'test/store/storage-limit.test.ts',
  'test/store/lease-wait.test.ts',
  'test/store/overview-views.test.ts',
];

export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    expect: { poll: { timeout: 30_000 } },
    include: ['test/citus/**/*.test.ts', ...STORE_TESTS_ON_CITUS],
    env: { TASKQUEUE_TEST_ENGINES: 'postgres' },
    globalSetup: ['test/helpers/generated-sql-module.ts', 'test/citus/global-setup.ts'],
    setupFiles: ['test/helpers/require-postgres.ts'],
  },
});
