import { describe, expect, it } from 'vitest';
import { settingsFromEnvironment } from '../../src/config/service-settings.js';
import { redactDatabaseUrl } from '../../src/store/engine/redact-database-url.js';
import { isQueueError } from '../../src/core/errors.js';

function refusal(env: Record<string, string>): Error {
  try {
    settingsFromEnvironment(env);
  } catch (error) {
    expect(isQueueError(error, 'INVALID_CONFIG')).toBe(true);
    return error as Error;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('operations settings', () => {
  it('has the documented defaults', () => {
    const s = settingsFromEnvironment({});
    expect([s.logLevel, s.metrics, s.dbWaitSeconds, s.shutdownGraceSeconds]).toEqual(['info', 'on', 30, 10]);
  });

  it('reads LOG_LEVEL, TASKQUEUE_METRICS, TASKQUEUE_DB_WAIT_SECONDS and TASKQUEUE_SHUTDOWN_GRACE_SECONDS', () => {
    const s = settingsFromEnvironment({
      LOG_LEVEL: 'DEBUG',
      TASKQUEUE_METRICS: 'token',
      TASKQUEUE_DB_WAIT_SECONDS: '0',
      TASKQUEUE_SHUTDOWN_GRACE_SECONDS: '2.5',
    });
    expect([s.logLevel, s.metrics, s.dbWaitSeconds, s.shutdownGraceSeconds]).toEqual(['debug', 'token', 0, 2.5]);
  });

  it('refuses unknown values, naming the variable', () => {
    expect(refusal({ LOG_LEVEL: 'loud' }).message).toContain('LOG_LEVEL');
    expect(refusal({ TASKQUEUE_METRICS: 'yes' }).message).toContain('TASKQUEUE_METRICS');
    expect(refusal({ TASKQUEUE_DB_WAIT_SECONDS: '-1' }).message).toContain('TASKQUEUE_DB_WAIT_SECONDS');
    expect(refusal({ TASKQUEUE_SHUTDOWN_GRACE_SECONDS: '10s' }).message).toContain('TASKQUEUE_SHUTDOWN_GRACE_SECONDS');
  });

  it('accepts postgres:// and postgresql:// URLs in DATABASE_URL', () => {
    for (const url of [
      'postgres://u:p@db:5432/tq',
      'postgresql://db/tq?sslmode=require',
      'postgres:///tq?host=/var/run/postgresql',
    ]) {
      expect(settingsFromEnvironment({ DATABASE_URL: url }).databaseUrl).toBe(url);
    }
  });

  it('refuses a DATABASE_URL that is not a PostgreSQL URL, or does not parse, naming it and never printing the password', () => {
    const wrongScheme = refusal({ DATABASE_URL: 'mysql://admin:hunter2secret@db/tq' });
    expect(wrongScheme.message).toContain('DATABASE_URL');
    expect(wrongScheme.message).toContain('a mysql:// URL');
    expect(wrongScheme.message).not.toContain('hunter2secret');
    for (const bad of ['admin:hunter2secret@db/tq', 'hunter2secret', 'postgres//admin:hunter2secret@db']) {
      const error = refusal({ DATABASE_URL: bad });
      expect(error.message).toContain('DATABASE_URL');
      expect(error.message).not.toContain('hunter2secret');
    }
  });

  it('redacts passwords in URLs for logs, also in query parameters', () => {
    expect(redactDatabaseUrl('postgres://u:s3cr3t@h:1/d')).toBe('postgres://u:***@h:1/d');
    expect(redactDatabaseUrl('postgres://u@h/d?password=s3cr3t&sslmode=require')).not.toContain('s3cr3t');
    expect(redactDatabaseUrl('not a url s3cr3t')).toBe('(unparsable URL)');
  });
});
