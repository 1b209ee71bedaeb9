import type { ErrorCode } from '../../core/errors.js';

/**
 * The SQLSTATEs of the SQL API (its routines, sql/routines/) and of the triggers
 * every add passes (sql/0007, sql/0004), each with the service's error code
 * it stands for. One table: docs/sql-api.md prints it, translateError and
 * the behaviour suite read it.
 */
export const SQL_API_SQLSTATES: Readonly<Record<string, ErrorCode>> = {
  TQ001: 'TOMBSTONED_TASK',
  TQ002: 'STORAGE_LIMIT_EXCEEDED',
  TQ003: 'UNKNOWN_QUEUE',
  TQ004: 'INVALID_QUEUE_MODE',
  TQ005: 'INVALID_TASK_NAME',
  TQ006: 'TASK_TOO_LARGE',
  TQ007: 'INVALID_TAG',
  TQ008: 'INVALID_ETA',
  TQ009: 'TOO_MANY_TASKS',
  TQ010: 'DUPLICATE_TASK_NAME',
  TQ011: 'TASK_ALREADY_EXISTS',
  TQ012: 'TASK_LEASE_EXPIRED',
  TQ013: 'UNKNOWN_TASK',
  TQ014: 'QUEUE_PAUSED',
  TQ015: 'INVALID_REQUEST',
  TQ016: 'INVALID_PAYLOAD',
};

/** The service's error code for a SQLSTATE of the SQL API, or undefined. */
export function errorCodeOfSqlState(sqlState: string): ErrorCode | undefined {
  return Object.hasOwn(SQL_API_SQLSTATES, sqlState) ? SQL_API_SQLSTATES[sqlState] : undefined;
}
