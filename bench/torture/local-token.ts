import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** An access token of the service's local issuer for email, minted with the real CLI (`taskqueue token`). */
export async function localToken(repoDir: string, databaseUrl: string, email: string): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [join(repoDir, 'dist/cli/main.js'), 'token', '--email', email],
    {
      cwd: repoDir,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl },
    },
  );
  return stdout.trim();
}
