import { CRON_TASK_NAME_PATTERN, RESERVED_CRON_NAME_REASON } from '../../core/cron/cron-job.js';

/** A SQL string literal of `text` (standard_conforming_strings: only quotes are doubled). */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** The PL/pgSQL condition: `name` (an expression) has the reserved form of a cron firing's task name. */
export function isCronTaskNameSql(name: string): string {
  return `${name} ~ ${literal(CRON_TASK_NAME_PATTERN.source)}`;
}

/**
 * The SQL API's refusal of a name in the reserved form of a cron firing
 * (src/core/cron/cron-job.ts): the cron service adds such tasks through the
 * service, never through these functions, so every caller of them is a
 * producer, and a producer's task under the next firing's name would take
 * the firing's place. The service's error (INVALID_TASK_NAME, TQ005) and
 * wording; `position`, when given, is an expression of the task's place in
 * the call, named in the message as `(task N)`.
 */
export function reservedCronNameCheck(name: string, indent: string, position?: string): string {
  const message = `task name "%" ${RESERVED_CRON_NAME_REASON}${position === undefined ? '' : ' (task %)'}`;
  return `${indent}IF ${isCronTaskNameSql(name)} THEN
${indent}  RAISE EXCEPTION ${literal(message)}, ${name}${position === undefined ? '' : `, ${position}`}
${indent}    USING ERRCODE = 'TQ005', DETAIL = ${name}, HINT = 'INVALID_TASK_NAME';
${indent}END IF;
`;
}
