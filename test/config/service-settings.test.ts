import { describe, expect, it } from 'vitest';
import { isQueueError } from '../../src/core/errors.js';
import { DEFAULT_SETTINGS, settingsFromEnvironment } from '../../src/config/service-settings.js';

describe('service settings: dead-letter retention', () => {
  it('defaults to 7 days and reads TASKQUEUE_DEAD_LETTER_DAYS', () => {
    expect(settingsFromEnvironment({}).deadLetterDays).toBe(7);
    expect(DEFAULT_SETTINGS.deadLetterDays).toBe(7);
    expect(settingsFromEnvironment({ TASKQUEUE_DEAD_LETTER_DAYS: '30' }).deadLetterDays).toBe(30);
    expect(settingsFromEnvironment({ TASKQUEUE_DEAD_LETTER_DAYS: '0.5' }).deadLetterDays).toBe(0.5);
    expect(settingsFromEnvironment({ TASKQUEUE_DEAD_LETTER_DAYS: ' ' }).deadLetterDays).toBe(7);
  });

  it('refuses a value that is not a non-negative number, naming the variable', () => {
    for (const bad of ['-1', 'seven', '1e3', '7d']) {
      let error: unknown;
      try {
        settingsFromEnvironment({ TASKQUEUE_DEAD_LETTER_DAYS: bad });
      } catch (caught) {
        error = caught;
      }
      expect(isQueueError(error, 'INVALID_CONFIG')).toBe(true);
      expect(String((error as Error).message)).toContain('TASKQUEUE_DEAD_LETTER_DAYS');
    }
  });
});

describe('service settings: the web console switch', () => {
  it('is on by default; TASKQUEUE_CONSOLE=off removes it; anything else is refused', () => {
    expect(settingsFromEnvironment({}).console).toBe(true);
    expect(settingsFromEnvironment({ TASKQUEUE_CONSOLE: 'on' }).console).toBe(true);
    expect(settingsFromEnvironment({ TASKQUEUE_CONSOLE: 'off' }).console).toBe(false);
    for (const bad of ['false', '0', 'no', 'Off']) {
      expect(() => settingsFromEnvironment({ TASKQUEUE_CONSOLE: bad })).toThrow(/TASKQUEUE_CONSOLE/);
    }
  });
});

describe('service settings: behind a pooler', () => {
  it('has prepared statements on by default; TASKQUEUE_PREPARED_STATEMENTS=off turns them off; anything else is refused', () => {
    expect(settingsFromEnvironment({}).preparedStatements).toBe(true);
    expect(settingsFromEnvironment({ TASKQUEUE_PREPARED_STATEMENTS: 'on' }).preparedStatements).toBe(true);
    expect(settingsFromEnvironment({ TASKQUEUE_PREPARED_STATEMENTS: 'off' }).preparedStatements).toBe(false);
    for (const bad of ['false', '0', 'disable']) {
      expect(() => settingsFromEnvironment({ TASKQUEUE_PREPARED_STATEMENTS: bad })).toThrow(
        /TASKQUEUE_PREPARED_STATEMENTS/,
      );
    }
  });

  it('reads the direct LISTEN URL, none by default', () => {
    expect(settingsFromEnvironment({}).listenDatabaseUrl).toBeNull();
    expect(settingsFromEnvironment({ TASKQUEUE_LISTEN_DATABASE_URL: ' ' }).listenDatabaseUrl).toBeNull();
    expect(settingsFromEnvironment({ TASKQUEUE_LISTEN_DATABASE_URL: 'postgres://db:5432/app' }).listenDatabaseUrl).toBe(
      'postgres://db:5432/app',
    );
  });

  it('reads TASKQUEUE_TARGET_URLS as target=url pairs, each URL checked, each target once', () => {
    expect(settingsFromEnvironment({}).targetUrls).toEqual(new Map());
    expect(
      settingsFromEnvironment({
        TASKQUEUE_TARGET_URLS: ' worker=http://worker:8080 , v2.api=https://api.example.com/base ',
      }).targetUrls,
    ).toEqual(
      new Map([
        ['worker', 'http://worker:8080'],
        ['v2.api', 'https://api.example.com/base'],
      ]),
    );
    expect(() => settingsFromEnvironment({ TASKQUEUE_TARGET_URLS: 'worker' })).toThrow(
      'TASKQUEUE_TARGET_URLS must be target=url pairs',
    );
    expect(() => settingsFromEnvironment({ TASKQUEUE_TARGET_URLS: 'worker=ftp://x' })).toThrow(
      'TASKQUEUE_TARGET_URLS: the URL of target "worker" must be an http or https URL',
    );
    expect(() => settingsFromEnvironment({ TASKQUEUE_TARGET_URLS: 'a=http://x,a=http://y' })).toThrow(
      'names target "a" twice',
    );
  });
});

describe('service settings: the App Engine API listener', () => {
  it('is off by default; TASKQUEUE_APPENGINE_API_PORT turns it on, on loopback unless TASKQUEUE_APPENGINE_API_HOST says otherwise', () => {
    expect(settingsFromEnvironment({}).appEngineApiPort).toBeNull();
    const on = settingsFromEnvironment({ TASKQUEUE_APPENGINE_API_PORT: '10001' });
    expect(on.appEngineApiPort).toBe(10001);
    expect(on.appEngineApiHost).toBe('127.0.0.1');
    expect(
      settingsFromEnvironment({ TASKQUEUE_APPENGINE_API_PORT: '10001', TASKQUEUE_APPENGINE_API_HOST: '0.0.0.0' })
        .appEngineApiHost,
    ).toBe('0.0.0.0');
    expect(() => settingsFromEnvironment({ TASKQUEUE_APPENGINE_API_PORT: 'x' })).toThrow(
      'TASKQUEUE_APPENGINE_API_PORT must be an integer from 0 to 65535',
    );
  });
});
