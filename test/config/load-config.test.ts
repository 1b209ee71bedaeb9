import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  BUILT_IN_QUEUE_XML,
  builtInConfig,
  configFormatOf,
  loadConfigFile,
  parseConfigText,
} from '../../src/config/load-config.js';
import { parseQueueXml } from '../../src/config/parse-queue-xml.js';
import { DEFAULT_LEASE_RATE, DEFAULT_RETRY_PARAMETERS, defaultQueueConfig } from '../../src/core/queue-config.js';
import { catchConfigError, catchConfigErrorAsync } from './catch-config-error.js';

const fixturePath = (name: string): string => fileURLToPath(new URL(`fixtures/${name}`, import.meta.url));

describe('loadConfigFile', () => {
  it('gives deep-equal configurations for the equivalent queue.xml and queue.yaml', async () => {
    const xmlPath = fixturePath('full-queue.xml');
    const yamlPath = fixturePath('full-queue.yaml');
    const fromXml = await loadConfigFile(xmlPath);
    const fromYaml = await loadConfigFile(yamlPath);
    expect(fromXml.source).toBe(xmlPath);
    expect(fromYaml.source).toBe(yamlPath);
    expect({ ...fromYaml, source: 'x' }).toEqual({ ...fromXml, source: 'x' });
    expect(fromXml.queues).toHaveLength(5);
  });

  it('reads .yml files as YAML', async () => {
    const path = fixturePath('with-default.yml');
    const config = await loadConfigFile(path);
    expect(config.source).toBe(path);
    expect(config.queues.map((queue) => queue.name)).toEqual(['jobs', 'default']);
  });

  it('passes maxActiveQueues through', async () => {
    const error = await catchConfigErrorAsync(() =>
      loadConfigFile(fixturePath('full-queue.xml'), { maxActiveQueues: 3 }),
    );
    expect(error.message).toContain('4 queues are defined besides "default", more than the limit of 3 active queues');
  });

  it('rejects an extension it cannot map to a format, without reading the file', async () => {
    const path = fixturePath('queue.txt');
    const error = await catchConfigErrorAsync(() => loadConfigFile(path));
    expect(error.message).toBe(
      `${path}: cannot tell the configuration format from the extension ".txt"; use .xml, .yaml or .yml`,
    );
    expect(error.details).toMatchObject({ file: path });
  });

  it('reports a missing file as INVALID_CONFIG with the cause attached', async () => {
    const path = fixturePath('missing.xml');
    const error = await catchConfigErrorAsync(() => loadConfigFile(path));
    expect(error.message).toMatch(
      new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: cannot read the configuration file: ENOENT`),
    );
    expect((error.cause as NodeJS.ErrnoException).code).toBe('ENOENT');
  });
});

describe('configFormatOf', () => {
  it.each([
    ['queue.xml', 'xml'],
    ['conf/QUEUE.XML', 'xml'],
    ['queue.yaml', 'yaml'],
    ['/etc/taskqueue/queue.yml', 'yaml'],
    ['a.b/queue.Yml', 'yaml'],
  ] as const)('%s is %s', (path, format) => {
    expect(configFormatOf(path)).toBe(format);
  });

  it.each([['queue'], ['queue.json'], ['queue.xml.bak'], ['xml'], ['.yaml']])('rejects %j', (path) => {
    const error = catchConfigError(() => configFormatOf(path));
    expect(error.message).toContain('cannot tell the configuration format from the extension');
  });
});

describe('parseConfigText', () => {
  it('dispatches on the given format and keeps the source', () => {
    const xml = parseConfigText('<queue-entries><queue><name>a</name></queue></queue-entries>', 'inline', 'xml');
    const yaml = parseConfigText('queue:\n- name: a\n', 'inline', 'yaml');
    expect(xml).toEqual(yaml);
    expect(xml.source).toBe('inline');
  });

  it('passes options through', () => {
    const error = catchConfigError(() =>
      parseConfigText('queue:\n- name: a\n- name: b\n', 'inline', 'yaml', { maxActiveQueues: 1 }),
    );
    expect(error.message).toBe(
      'inline: 2 queues are defined besides "default", more than the limit of 1 active queues',
    );
  });
});

describe('builtInConfig', () => {
  it('holds the default queue and one pull queue without ACL entries', () => {
    expect(builtInConfig()).toEqual({
      source: 'built-in',
      totalStorageLimitBytes: null,
      adminEmails: [],
      queues: [
        defaultQueueConfig(),
        {
          name: 'pull-queue',
          mode: 'pull',
          maxLeases: null,
          storageLimitBytes: null,
          leaseRate: DEFAULT_LEASE_RATE,
          retry: DEFAULT_RETRY_PARAMETERS,
          acl: { userEmails: [], writerEmails: [] },
        },
      ],
    });
  });

  it('matches its queue.xml form', () => {
    expect(parseQueueXml(BUILT_IN_QUEUE_XML, 'built-in')).toEqual(builtInConfig());
  });

  it('returns a fresh object each time', () => {
    expect(builtInConfig()).not.toBe(builtInConfig());
    expect(builtInConfig().queues).not.toBe(builtInConfig().queues);
  });
});
