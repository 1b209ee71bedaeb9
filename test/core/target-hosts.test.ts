import { describe, expect, it } from 'vitest';
import { isQueueError } from '../../src/core/errors.js';
import { checkTargetUrl, parseTargetHosts } from '../../src/core/push/target-hosts.js';

describe('TASKQUEUE_TARGET_HOSTS', () => {
  it('reads host, host:port and host:*', () => {
    expect(parseTargetHosts(' 127.0.0.1:* , api.example.com,[::1]:8080,')).toEqual([
      { host: '127.0.0.1', port: '*' },
      { host: 'api.example.com', port: 'default' },
      { host: '[::1]', port: 8080 },
    ]);
    expect(parseTargetHosts('')).toEqual([]);
  });

  it('refuses an entry that is not a canonical host, naming it', () => {
    for (const entry of ['http://a.com', 'a.com:99999', 'a.com:x', '[::0:1]', '2130706433', 'a b', 'a.com/x']) {
      try {
        parseTargetHosts(`ok.example.com,${entry}`);
        throw new Error(`accepted ${entry}`);
      } catch (error) {
        expect(isQueueError(error, 'INVALID_CONFIG')).toBe(true);
        expect((error as Error).message).toContain(`"${entry}"`);
      }
    }
  });
});

describe('an HTTP target URL', () => {
  const rules = parseTargetHosts('127.0.0.1:*,api.example.com,[::1]:8080');

  it('passes when its host and port are listed', () => {
    expect(checkTargetUrl('http://127.0.0.1:9999/hook?x=1', rules)).toBeNull();
    expect(checkTargetUrl('https://api.example.com/task', rules)).toBeNull();
    expect(checkTargetUrl('https://API.example.com:443/task', rules)).toBeNull();
    expect(checkTargetUrl('http://[::1]:8080/', rules)).toBeNull();
  });

  it('is refused off the list, and says how to open HTTP targets when there is no list', () => {
    expect(checkTargetUrl('https://api.example.com:8443/task', rules)).toContain('does not list');
    expect(checkTargetUrl('http://169.254.169.254/computeMetadata/v1/', rules)).toContain('does not list');
    expect(checkTargetUrl('http://[::1]:8081/', rules)).toContain('does not list');
    expect(checkTargetUrl('https://api.example.com/', [])).toContain('no TASKQUEUE_TARGET_HOSTS is set');
  });

  it('refuses forms another parser could read as a different host', () => {
    const hostile = [
      'http://api.example.com@127.0.0.2/',
      'http://user:pw@127.0.0.1/',
      'http://127.0.0.1\\@evil.example/',
      'http://api.example.com\\.evil.example/',
      'http://%31%32%37.0.0.1/',
      'http://2130706433/',
      'http://0x7f.0.0.1/',
      'http://0177.0.0.1/',
      'http://[0:0::1]:8080/',
      'http://[::ffff:127.0.0.1]/',
      'http://127.0.0.1 /',
      'http://127.0.0.1/\n',
      `http://127.0.0.1/${'a'.repeat(2100)}`,
      'ftp://127.0.0.1/',
      'file:///etc/passwd',
      '/relative/path',
      'http:/127.0.0.1/',
    ];
    for (const url of hostile) expect(checkTargetUrl(url, rules), url).not.toBeNull();
  });
});
