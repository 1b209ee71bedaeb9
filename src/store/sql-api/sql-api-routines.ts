import { sqlApiFunctions, type GeneratedFunction } from './sql-api-functions.js';

/**
 * The SQL API's generated functions as routine files (sql/routines/<name>.sql):
 * a header naming the builder the text comes from, the generator's text
 * (sql-api-functions.ts), then the grants that are the function's and not
 * the generator's: nobody but the owner may call it unless granted, and the
 * SQL API's roles (<schema>_producer adds, <schema>_consumer leases,
 * modifies and deletes; made by sql/0016) get theirs when they exist.
 * `npm run generate:sql-api` writes these files; test/sql-api/generated-functions.test.ts
 * fails while one differs from what this module renders.
 */
export interface GeneratedRoutine {
  /** The routine's name: its file is sql/routines/<name>.sql. */
  readonly name: string;
  /** The file's whole text. */
  readonly text: string;
}

/** Where each generated function's statements come from, for its header. */
const BUILDERS: Readonly<Record<string, string>> = {
  lease_tasks: 'leaseStatement (src/store/lease-tasks.ts)',
  modify_lease: 'modifyLeaseStatement and whyNotModifiedStatement (src/store/modify-lease.ts)',
  delete_tasks: 'deleteStatement (src/store/delete-tasks.ts)',
  generated_name_time: 'the generated name form (src/store/sql-api/generated-name-sql.ts)',
  generate_task_names: 'the generated name form (src/store/sql-api/generated-name-sql.ts)',
  refuse_add: 'the add statement (src/store/sql-api/sql-api-add-function.ts)',
  add_tasks: 'the add statement (src/store/add-statement.ts, src/store/sql-api/sql-api-add-function.ts)',
  add_task: 'src/store/sql-api/sql-api-add-function.ts',
  add_push_task: 'the add statement and the push rules (src/store/sql-api/sql-api-push-function.ts)',
  claim_push_tasks_after_delivery:
    'deliveredStatement (src/store/push/push-delivered.ts, src/store/sql-api/push-claim-function.ts)',
};

/** The signatures whose EXECUTE is revoked from PUBLIC here (the generator's text revokes the rest itself). */
const REVOKED: Readonly<Record<string, readonly string[]>> = {
  lease_tasks: ['lease_tasks(text, integer, integer, text, boolean)'],
  modify_lease: ['modify_lease(text, text, timestamptz, integer)'],
  delete_tasks: ['delete_tasks(text, text[])'],
  generated_name_time: ['generated_name_time(text)'],
  add_tasks: ['add_tasks(text, bytea[], text[], text[], timestamptz[])'],
  add_task: ['add_task(text, bytea, text, text, timestamptz)'],
};

/** The SQL API role (`producer` or `consumer`) granted each function, where the generator's text does not grant it. */
const GRANTED: Readonly<Record<string, 'producer' | 'consumer'>> = {
  lease_tasks: 'consumer',
  modify_lease: 'consumer',
  delete_tasks: 'consumer',
  add_tasks: 'producer',
  add_task: 'producer',
};

/** The header line that marks a routine file as generated. */
export function generatedHeader(name: string): string {
  const builder = BUILDERS[name] ?? 'src/store/sql-api/sql-api-functions.ts';
  return `-- GENERATED from ${builder} by \`npm run generate:sql-api\`: do not edit by hand.\n`;
}

/** A generated function's routine file. */
export function routineFile(fn: GeneratedFunction): GeneratedRoutine {
  const acl: string[] = (REVOKED[fn.name] ?? []).map((sig) => `REVOKE ALL ON FUNCTION ${sig} FROM PUBLIC;\n`);
  const role = GRANTED[fn.name];
  if (role !== undefined) {
    const sig = REVOKED[fn.name]![0]!;
    acl.push(`DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = current_schema() || '_${role}') THEN
    EXECUTE format('GRANT EXECUTE ON FUNCTION %I.${sig} TO %I', current_schema(), current_schema() || '_${role}');
  END IF;
END
$$;
`);
  }
  const grants =
    acl.length === 0
      ? ''
      : `\n-- Nobody but the owner calls it unless granted (docs/sql-api.md, roles).\n${acl.join('')}`;
  return { name: fn.name, text: `${generatedHeader(fn.name)}\n${fn.text}${grants}` };
}

/** Every generated routine file, in the generator's order. */
export function generatedRoutines(): GeneratedRoutine[] {
  return sqlApiFunctions().map(routineFile);
}
