import { sql, type RawBuilder } from 'kysely';
import { AUDIT_NAMES_KEPT, type AuditIntent } from '../core/audit-log.js';
import { table, type StoreContext } from './store-context.js';

/**
 * The audit entry of an operator action as one more CTE of the statement
 * that does the action (`, audited as (insert ...)`): the action and its
 * record commit together or not at all. `counted` names the CTE whose rows
 * the entry counts and names (its `name` column: the first AUDIT_NAMES_KEPT
 * in name order, a top-N sort of rows the statement holds anyway); null
 * counts 0 and names none. `when`: the entry is written only if it
 * holds (an action that fails, such as the release of a task that is not
 * live, records nothing). Empty without an intent.
 */
export function auditedCte(
  ctx: StoreContext,
  intent: AuditIntent | undefined,
  counted: string | null,
  when: RawBuilder<unknown> = sql`true`,
): RawBuilder<unknown> {
  if (intent === undefined) return sql``;
  const count = counted === null ? sql`0` : sql`(select count(*) from ${sql.ref(counted)})::int4`;
  const names =
    counted === null
      ? sql`null::text[]`
      : sql`(select array_agg(k.name order by k.name) from (
          select name from ${sql.ref(counted)} order by name limit ${AUDIT_NAMES_KEPT}::int4) k)`;
  return sql`, audited as (
      insert into ${table(ctx, 'audit_log')} (actor, action, queue, target, count, task_names, source)
      select ${intent.actor}, ${intent.action}, ${intent.queue}, ${intent.target ?? null}::text, ${count}, ${names},
             ${intent.source ?? 'console'}
       where ${when}
    )`;
}
