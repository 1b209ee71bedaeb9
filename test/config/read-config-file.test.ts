import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/config/load-config.js';
import { MAX_CONFIG_BYTES } from '../../src/config/read-config-file.js';
import { catchConfigErrorAsync } from './catch-config-error.js';

describe('loadConfigFile refuses what is not a sane configuration file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tq-config-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a FIFO at once instead of blocking on it', async () => {
    const path = join(dir, 'queue.xml');
    execFileSync('mkfifo', [path]);
    // Nobody ever writes to the FIFO: a blocking open would hang the test until its timeout.
    const error = await catchConfigErrorAsync(() => loadConfigFile(path));
    expect(error.message).toBe(`${path}: the configuration must be a regular file, but this is a FIFO (named pipe)`);
  });

  it('refuses a directory', async () => {
    const path = join(dir, 'queue.yaml');
    execFileSync('mkdir', [path]);
    const error = await catchConfigErrorAsync(() => loadConfigFile(path));
    expect(error.message).toBe(`${path}: the configuration must be a regular file, but this is a directory`);
  });

  it('refuses a file over 1 MB without reading it, and reads one of exactly 1 MB', async () => {
    const path = join(dir, 'queue.xml');
    const head = '<queue-entries><queue><name>q</name><mode>pull</mode></queue></queue-entries>';
    writeFileSync(path, head.padEnd(MAX_CONFIG_BYTES, ' '));
    expect((await loadConfigFile(path)).queues.map((q) => q.name)).toContain('q');
    truncateSync(path, 64 * 1024 * 1024); // sparse: a 64 MB file that costs no disk
    const error = await catchConfigErrorAsync(() => loadConfigFile(path));
    expect(error.message).toBe(
      `${path}: the configuration file is ${64 * 1024 * 1024} bytes, more than the limit of ${MAX_CONFIG_BYTES}`,
    );
  });

  it('names the file when the parser itself refuses the document', async () => {
    const deep = join(dir, 'deep.xml');
    writeFileSync(deep, `<queue-entries>${'<a>'.repeat(5000)}${'</a>'.repeat(5000)}</queue-entries>`);
    expect((await catchConfigErrorAsync(() => loadConfigFile(deep))).message).toMatch(
      new RegExp(`^${deep}: malformed XML: .*nested`),
    );
    const proto = join(dir, 'proto.xml');
    writeFileSync(proto, '<queue-entries><queue><name>q</name><__proto__>x</__proto__></queue></queue-entries>');
    expect((await catchConfigErrorAsync(() => loadConfigFile(proto))).message).toMatch(
      new RegExp(`^${proto}: malformed XML: .*__proto__`),
    );
    const deepYaml = join(dir, 'deep.yaml');
    writeFileSync(deepYaml, `queue: ${'['.repeat(20000)}${']'.repeat(20000)}\n`);
    expect((await catchConfigErrorAsync(() => loadConfigFile(deepYaml))).message).toMatch(new RegExp(`^${deepYaml}: `));
    const protoYaml = join(dir, 'proto.yaml');
    writeFileSync(protoYaml, 'queue:\n- name: q\n  __proto__: x\n');
    expect((await catchConfigErrorAsync(() => loadConfigFile(protoYaml))).message).toBe(
      `${protoYaml}: queue "q": unknown key __proto__ in queue`,
    );
  });

  it('still reports a missing file with its name', async () => {
    const path = join(dir, 'missing.xml');
    expect((await catchConfigErrorAsync(() => loadConfigFile(path))).message).toMatch(
      new RegExp(`^${path}: cannot read the configuration file: ENOENT`),
    );
  });
});
