// Lint: typescript-eslint's recommended rules, plus the architecture's rules
// of imports (docs/architecture.md) and "only src/main.ts reads process.env".
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const DRIVERS = ['kysely', 'pg', '@electric-sql/*', 'hono', 'hono/*', '@hono/*'];

/** Forbids imports of packages and of our own folders (relative paths from src/<layer>/...). */
function restrict(packages, folders) {
  return {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          ...packages.map((name) => ({ group: [name], message: 'this layer must not depend on that package (docs/architecture.md)' })),
          ...folders.map((folder) => ({
            group: [`**/${folder}/*`, `../${folder}/*`, `../../${folder}/*`],
            message: `this layer must not import from src/${folder} (docs/architecture.md)`,
          })),
        ],
      },
    ],
  };
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'data/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'only src/main.ts reads process.env' }],
    },
  },
  { files: ['src/core/**/*.ts'], rules: restrict(DRIVERS, ['store', 'http', 'auth', 'config', 'cli']) },
  { files: ['src/config/**/*.ts'], rules: restrict(DRIVERS, ['store', 'http', 'auth', 'cli']) },
  { files: ['src/store/**/*.ts'], rules: restrict(['hono', 'hono/*', '@hono/*'], ['http', 'cli']) },
  { files: ['src/http/**/*.ts'], rules: restrict(['kysely', 'pg', '@electric-sql/*'], ['store', 'cli']) },
  // The console renders from the core; its store (the audit log) comes in through ConsoleDeps.
  { files: ['src/console/**/*.{ts,tsx}'], rules: restrict(['kysely', 'pg', '@electric-sql/*'], ['store', 'cli']) },
  {
    files: ['src/main.ts', 'test/**/*.ts', 'bench/**/*.ts', 'vitest.config.ts', 'eslint.config.js'],
    rules: { 'no-restricted-properties': 'off' },
  },
);
