import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The App Engine SDK of the installed Google Cloud CLI (its
 * `app-engine-python` component), or null with the reason when the CLI or
 * the component is absent (the SDK tests then skip, saying so).
 */
export function appEngineSdk(): { dir: string | null; reason: string } {
  let root: string;
  try {
    root = execFileSync('gcloud', ['info', '--format=value(installation.sdk_root)'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 60_000,
    }).trim();
  } catch {
    return { dir: null, reason: 'the Google Cloud CLI (gcloud) is not installed' };
  }
  const dir = join(root, 'platform', 'google_appengine');
  if (!existsSync(join(dir, 'google', 'appengine', 'api', 'taskqueue'))) {
    return { dir: null, reason: `the CLI has no App Engine SDK (component app-engine-python) under ${root}` };
  }
  return { dir, reason: '' };
}
