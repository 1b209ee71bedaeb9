import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

/**
 * What `npm ci` says on the oldest Node the package supports: no install
 * script left undecided (npm 11 skips undecided ones and warns), and an
 * EBADENGINE only for the benchmark's comparison peers and Google's Cloud
 * Tasks client of the tests, which README names.
 */

interface LockEntry {
  version?: string;
  dev?: boolean;
  hasInstallScript?: boolean;
  engines?: { node?: string };
}

const read = (path: string): unknown => JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8'));
const pkg = read('package.json') as { engines: { node: string }; allowScripts?: Record<string, boolean> };
const lock = read('package-lock.json') as { packages: Record<string, LockEntry> };
const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
/** Dev dependencies of `npm run bench -- --compare` only, which declare a newer Node than ours. */
const BENCH_PEERS = ['graphile-worker', 'pg-boss'];
/**
 * Google's Cloud Tasks client, a dev dependency of the tests that run it
 * against the service (test/http/cloudtasks-node-client.test.ts), and what
 * it brings: they declare Node 22 and run on 20 with the warning.
 */
const CLIENT_PEERS = [
  '@google-cloud/tasks',
  'gaxios',
  'gcp-metadata',
  'google-auth-library',
  'google-gax',
  'google-logging-utils',
  'proto3-json-serializer',
  'retry-request',
];
const nameOf = (path: string) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);

describe('npm ci', () => {
  it('finds a decision in allowScripts for every dependency with an install script', () => {
    const withScripts = Object.entries(lock.packages).filter(([path, entry]) => path !== '' && entry.hasInstallScript);
    expect(withScripts.length).toBeGreaterThan(0);
    for (const [path] of withScripts) expect(pkg.allowScripts?.[nameOf(path)], path).toBeTypeOf('boolean');
  });

  it("warns EBADENGINE on the oldest supported Node for the bench's comparison peers and the tests' Cloud Tasks client only, which README names", () => {
    const oldest = semver.minVersion(pkg.engines.node)!.version;
    const refusing = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.engines?.node && !semver.satisfies(oldest, entry.engines.node))
      .map(([path, entry]) => ({ name: nameOf(path), dev: entry.dev === true }));
    // Nothing the package needs at run time asks for more than package.json's engines.
    expect(refusing.filter((entry) => !entry.dev)).toEqual([]);
    expect(refusing.map((entry) => entry.name).sort()).toEqual([...BENCH_PEERS, ...CLIENT_PEERS].sort());
    for (const name of [...BENCH_PEERS, '@google-cloud/tasks']) expect(README).toContain(`\`${name}\``);
    expect(README).toContain('EBADENGINE');
  });
});
