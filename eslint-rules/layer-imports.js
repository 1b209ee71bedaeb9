// ESLint rule `layers/allowed-imports`: each part of src/ (a folder, or a
// top-level file) may import only what its entry in the allow-list names.
// Anything else fails lint, and so does a part of src/ without an entry.
import { dirname, relative, resolve, sep } from 'node:path';

/**
 * What an import names, as the allow-list spells it: one of our folders
 * (`core`), a top-level file (`server.ts`), a package (`kysely`,
 * `@hono/node-server`, `node:fs`), or a path outside src (`../package.json`).
 */
function targetOf(specifier, fromFile, srcDir) {
  if (specifier.startsWith('.')) {
    const parts = relative(srcDir, resolve(dirname(fromFile), specifier)).split(sep);
    if (parts[0] === '..') return parts.join('/');
    return parts.length === 1 ? parts[0].replace(/\.js$/, '.ts') : parts[0];
  }
  const segments = specifier.split('/');
  return specifier.startsWith('@') ? segments.slice(0, 2).join('/') : segments[0];
}

/** The part of src/ a file belongs to: its folder, or its own name at the top level. */
function partOf(file, srcDir) {
  const parts = relative(srcDir, file).split(sep);
  if (parts[0] === '..' || parts.length === 0) return null;
  return parts[0];
}

export const allowedImports = {
  meta: {
    type: 'problem',
    docs: {
      description:
        'each part of src/ imports only what the allow-list in eslint.config.js names (docs/architecture.md)',
    },
    schema: [
      {
        type: 'object',
        properties: { srcDir: { type: 'string' }, allow: { type: 'object' } },
        required: ['srcDir', 'allow'],
      },
    ],
    messages: {
      forbidden:
        'src/{{part}} may not import {{target}} ("{{specifier}}"); it may import {{allowed}} (eslint.config.js, docs/architecture.md)',
      unlisted:
        'src/{{part}} has no entry in the import allow-list (eslint.config.js); add one, and a row in docs/architecture.md',
    },
  },
  create(context) {
    const { srcDir, allow } = context.options[0];
    const file = context.filename;
    const part = partOf(file, srcDir);
    if (part === null) return {};
    const entry = allow[part];
    if (entry === undefined) {
      return { Program: (node) => context.report({ node, messageId: 'unlisted', data: { part } }) };
    }
    // A folder may always import within itself.
    const allowed = new Set([part, ...entry]);
    const check = (node, source) => {
      if (!source || source.type !== 'Literal' || typeof source.value !== 'string') return;
      const target = targetOf(source.value, file, srcDir);
      if (allowed.has(target)) return;
      context.report({
        node: source,
        messageId: 'forbidden',
        data: {
          part,
          target,
          specifier: source.value,
          allowed: entry.length === 0 ? 'only its own files' : entry.join(', '),
        },
      });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
    };
  },
};

export default { rules: { 'allowed-imports': allowedImports } };
