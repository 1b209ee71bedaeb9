import { describe, expect, it } from 'vitest';
import { deliveryUrl, pathClimbsOut } from '../../src/core/push/push-url.js';

describe('deliveryUrl', () => {
  it('joins, normalizes as the HTTP client does, and refuses a path that leaves the base path', () => {
    expect(deliveryUrl('http://h/hooks/base', '/x')).toBe('http://h/hooks/base/x');
    expect(deliveryUrl('http://h/hooks/base/', '/a/./b/../c?q=/../')).toBe('http://h/hooks/base/a/c?q=/../');
    expect(deliveryUrl('http://h/hooks/base', '/..')).toBeNull();
    expect(deliveryUrl('http://h/hooks/base', '/../../x')).toBeNull();
    expect(deliveryUrl('http://h/hooks/base', '/%2e%2e/%2E%2e/x')).toBeNull();
    expect(deliveryUrl('http://h/hooks/base', '/..\\..\\x')).toBeNull();
    // A sibling that shares the base's prefix is outside it too.
    expect(deliveryUrl('http://h/hooks/base', '/../base2')).toBeNull();
    // A base at the root has nothing above it.
    expect(deliveryUrl('http://h', '/../x')).toBe('http://h/x');
    expect(deliveryUrl('https://h:443/p/', '/q')).toBe('https://h/p/q');
  });

  it('pathClimbsOut (the rule adds check, in both engines) agrees with the URL parser the client uses', () => {
    const segments = ['a', '.', '..', '%2e', '%2E', '%2e%2e', '.%2e', '%2E.', '...', 'a..', '%2e%2e%2e', ''];
    const samples: string[] = [];
    for (const x of segments)
      for (const y of segments) for (const z of segments) samples.push(`/${x}/${y}/${z}`, `/${x}\\${y}/${z}?q=/../..`);
    for (const url of samples) {
      expect(pathClimbsOut(url), url).toBe(deliveryUrl('http://h/b1/b2/b3/b4', url) === null);
    }
  });
});
