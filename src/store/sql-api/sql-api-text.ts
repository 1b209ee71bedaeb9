import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
  type RawBuilder,
} from 'kysely';
import type { Database } from '../schema.js';

/**
 * What the SQL API's generators (sql-api-functions.ts and the modules it
 * reads) need to write a store builder's statement into a function: its
 * text with PL/pgSQL variables where the service binds values.
 */

/** Only compiles (the dummy driver never connects): the text of a fragment, for the generators and their tests. */
export const compiler = new Kysely<Database>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** The text of a statement whose values are all PL/pgSQL variables (no bound parameter). */
export function statementText(statement: RawBuilder<unknown>): string {
  const compiled = statement.compile(compiler);
  if (compiled.parameters.length > 0)
    throw new Error(`a generated statement binds ${compiled.parameters.length} values`);
  return compiled.sql;
}

/** Unqualified table names: the function runs with its schema as search_path. */
export const tableOf = (name: keyof Database) => sql.table(name);

export const v = (name: string) => sql.raw(name);

/** Unqualified function names, for the same reason. */
export const routineOf = (name: string) => sql.raw(name);

export function indent(text: string, spaces: number): string {
  const pad = ' '.repeat(spaces);
  return text
    .split('\n')
    .map((line) => (line.trim() === '' ? '' : pad + line))
    .join('\n');
}
