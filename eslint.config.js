// Lint: typescript-eslint's recommended rules, plus the architecture's rules
// of imports (docs/architecture.md; ALLOWED_IMPORTS below) and "only
// src/environment.ts reads process.env".
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { join } from 'node:path';
import layers from './eslint-rules/layer-imports.js';
import statements from './eslint-rules/statement-labels.js';

const SRC = join(import.meta.dirname, 'src');

/**
 * The rule of imports (docs/architecture.md), as an allow-list: what each
 * folder of src/ and each top-level file may import besides its own folder:
 * our folders (`core`), top-level files (`server.ts`), packages and Node
 * built-ins (`node:fs` covers `node:fs/promises`). Everything else fails
 * lint, and so does a new folder or top-level file until it has an entry.
 */
const ALLOWED_IMPORTS = {
  // The domain: nothing of ours but core; no driver, no I/O.
  core: ['node:crypto'],
  config: ['core', 'cron', 'yaml', 'fast-xml-parser', 'node:fs', 'node:path'],
  // Schedules of cron jobs: App Engine's grammar (ours) and five-field cron expressions (croner); pure.
  cron: ['core', 'croner'],
  // Cloud Tasks v2's wire forms (proto3 JSON values, resource names); pure.
  cloudtasks: ['core'],
  store: [
    'core',
    'kysely',
    'pg',
    '@electric-sql/pglite',
    'node:child_process',
    'node:crypto',
    'node:fs',
    'node:module',
    'node:net',
    'node:os',
    'node:path',
    'node:url',
  ],
  // Its storage comes through AuthStore (auth-store.ts); hono for the local token endpoint.
  auth: ['core', 'jose', 'hono', '@hono/node-server', 'node:crypto', 'node:fs', 'node:http', 'node:net', 'node:path'],
  http: ['core', 'auth', 'cloudtasks', 'hono', 'node:crypto', 'node:http', 'node:stream', 'node:util', 'node:zlib'],
  console: ['core', 'auth', 'hono', 'uplot', 'esbuild', 'node:crypto', 'node:fs', 'node:url'],
  // Composition: wires the layers together.
  cli: [
    'core',
    'client',
    'config',
    'cron',
    'store',
    'auth',
    'http',
    'open-task-queue.ts',
    'server.ts',
    'run-server.ts',
    'environment.ts',
    'commander',
    'node:child_process',
    'node:fs',
    'node:path',
    'node:string_decoder',
    'node:util',
    'node:v8',
  ],
  // Push delivery: the HTTP client and the wiring of the dispatcher to the store.
  push: ['core', 'store', 'undici'],
  'open-task-queue.ts': ['core', 'config', 'store', 'open'],
  // The pieces openTaskQueue composes: options resolved once, the service over its database and its wiring.
  open: ['core', 'config', 'store', 'auth', 'push'],
  // Logs and metrics of the server: pino and prom-client live here only.
  ops: ['core', 'config', 'http', 'pino', 'pino-pretty', 'prom-client'],
  // App Engine's API protocol (POST /rpc_http): the envelope, the taskqueue service's calls onto the core.
  appengine: ['core', 'protobufjs', 'node:crypto'],
  'server.ts': [
    'appengine',
    'core',
    'config',
    'auth',
    'http',
    'console',
    'ops',
    'server',
    'open-task-queue.ts',
    'node:http',
    'node:path',
  ],
  // The pieces of startServer: listening, readiness, graceful shutdown, the start line.
  server: ['core', 'config', 'auth', 'http', 'open-task-queue.ts', '@hono/node-server', 'node:http', 'node:net'],
  'run-server.ts': ['core', 'config', 'ops', 'server.ts'],
  // The REST client (`taskqueue/client`): no driver, Kysely or Hono; core's plain parts only.
  client: ['core', 'undici', 'node:events'],
  'environment.ts': ['config'],
  'main.ts': ['environment.ts', 'cli', 'node:fs', 'node:url'],
  'index.ts': ['core', 'config', 'auth', 'environment.ts', 'open-task-queue.ts'],
};

export default tseslint.config(
  { ignores: ['dist/**', '.test-build/**', 'node_modules/**', 'coverage/**', 'data/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'only src/environment.ts reads process.env' },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { layers },
    rules: { 'layers/allowed-imports': ['error', { srcDir: SRC, allow: ALLOWED_IMPORTS }] },
  },
  {
    // Every SQL statement of the store opens with its /* label */ (CONTRIBUTING.md).
    files: ['src/store/**/*.ts'],
    plugins: { statements },
    rules: { 'statements/labelled': 'error' },
  },
  {
    files: ['src/environment.ts', 'test/**/*.ts', 'bench/**/*.ts', 'vitest.config.ts', 'eslint.config.js'],
    rules: { 'no-restricted-properties': 'off' },
  },
);
