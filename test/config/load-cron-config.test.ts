import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCronFile, loadCronFile } from '../../src/config/load-cron-config.js';
import { MAX_CONFIG_BYTES } from '../../src/config/read-config-file.js';
import { catchConfigErrorAsync } from './catch-config-error.js';

const JOB = 'cron:\n- url: /a\n  schedule: every 5 minutes\n';
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cron-config-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('findCronFile', () => {
  it('takes the configured file as given, else cron.yaml, else cron.xml, else none', async () => {
    const here = await mkdtemp(join(dir, 'find-'));
    expect(await findCronFile('/somewhere/jobs.yaml', here)).toBe('/somewhere/jobs.yaml');
    expect(await findCronFile(null, here)).toBeNull();
    await writeFile(join(here, 'cron.xml'), '<cronentries/>');
    expect(await findCronFile(null, here)).toBe(join(here, 'cron.xml'));
    await writeFile(join(here, 'cron.yaml'), JOB);
    expect(await findCronFile(null, here)).toBe(join(here, 'cron.yaml'));
  });
});

describe('loadCronFile', () => {
  it('reads cron.yaml, cron.yml and cron.xml by extension', async () => {
    await writeFile(join(dir, 'cron.yaml'), JOB);
    await writeFile(join(dir, 'jobs.yml'), JOB);
    await writeFile(
      join(dir, 'cron.xml'),
      '<cronentries><cron><url>/a</url><schedule>every 5 minutes</schedule></cron></cronentries>',
    );
    const yaml = await loadCronFile(join(dir, 'cron.yaml'));
    expect(yaml.source).toBe(join(dir, 'cron.yaml'));
    expect(yaml.jobs).toHaveLength(1);
    expect((await loadCronFile(join(dir, 'jobs.yml'))).jobs).toEqual(yaml.jobs);
    expect((await loadCronFile(join(dir, 'cron.xml'))).jobs).toEqual(yaml.jobs);
  });

  it('refuses a missing file, an unknown extension, a directory and a file over the size limit, naming the file', async () => {
    expect((await catchConfigErrorAsync(() => loadCronFile(join(dir, 'missing.yaml')))).message).toContain(
      'missing.yaml: cannot read the configuration file',
    );
    await writeFile(join(dir, 'cron.txt'), JOB);
    expect((await catchConfigErrorAsync(() => loadCronFile(join(dir, 'cron.txt')))).message).toContain(
      'use .xml, .yaml or .yml',
    );
    await mkdir(join(dir, 'folder.yaml'));
    expect((await catchConfigErrorAsync(() => loadCronFile(join(dir, 'folder.yaml')))).message).toContain(
      'must be a regular file, but this is a directory',
    );
    await writeFile(join(dir, 'huge.yaml'), `# ${'x'.repeat(MAX_CONFIG_BYTES)}\n`);
    expect((await catchConfigErrorAsync(() => loadCronFile(join(dir, 'huge.yaml')))).message).toContain(
      'more than the limit',
    );
  });
});
