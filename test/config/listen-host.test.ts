import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { settingsFromEnvironment } from '../../src/config/service-settings.js';

/**
 * The service listens on loopback unless told otherwise: /metrics (open to
 * anyone by default) and the REST API are not offered to the network by a
 * bare `npm start`. The image, which is only reachable through its published
 * port, listens on every interface.
 */
describe('the interface the server listens on', () => {
  it('is 127.0.0.1 by default, and HOST when set', () => {
    expect(settingsFromEnvironment({}).host).toBe('127.0.0.1');
    expect(settingsFromEnvironment({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(settingsFromEnvironment({ HOST: '::' }).host).toBe('::');
  });

  it('is every interface in the Docker image', () => {
    const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
    expect(dockerfile).toMatch(/^ENV .*\bHOST=0\.0\.0\.0\b/m);
  });
});
