// ESLint rule `statements/labelled`: every SQL statement in src/store opens
// with its label, `/* name */`, the name grep, pg_stat_statements and the
// prepared statement's name (store/engine/statement-name.ts) share. A statement is
// a `sql` template that is executed where it stands (`sql`...`.execute(`)
// or whose text begins with a statement's keyword; fragments (`and id < $1`)
// carry no label.

const KEYWORDS =
  /^\s*(select|insert|update|delete|with|merge|analyze|vacuum|lock|set|show|listen|notify|values|table)\b/i;
const LABEL = /^\s*\/\* ([a-z][a-z0-9_]*) \*\//;

/** `sql` or `sql<T>` (Kysely's tag). */
function isSqlTag(node) {
  return node.tag.type === 'Identifier' && node.tag.name === 'sql';
}

function firstText(node) {
  return node.quasi.quasis[0]?.value.cooked ?? '';
}

export const labelled = {
  meta: {
    type: 'problem',
    docs: { description: 'every SQL statement in src/store opens with its /* label */ (CONTRIBUTING.md)' },
    schema: [],
    messages: {
      unlabelled:
        'a SQL statement in src/store opens with its label: `/* name */` (lower case, digits, _), unique in src/store',
      duplicate: 'the label "{{label}}" is used by another statement of this file; each statement has its own',
    },
  },
  create(context) {
    const seen = new Map();
    return {
      TaggedTemplateExpression(node) {
        if (!isSqlTag(node)) return;
        const text = firstText(node);
        const executed =
          node.parent?.type === 'MemberExpression' &&
          node.parent.object === node &&
          node.parent.property?.name === 'execute';
        const label = LABEL.exec(text)?.[1];
        if (label === undefined) {
          // A leading comment that is not a label in the form is a label gone wrong.
          if (executed || KEYWORDS.test(text) || /^\s*\/\*/.test(text))
            context.report({ node, messageId: 'unlabelled' });
          return;
        }
        // The same label twice in a file is one statement written twice, unless it is one statement's variants.
        const previous = seen.get(label);
        if (previous !== undefined && previous !== text)
          context.report({ node, messageId: 'duplicate', data: { label } });
        seen.set(label, text);
      },
    };
  },
};

export default { rules: { labelled } };
