import { describe, expect, it } from 'vitest';
import { LruCache } from '../../src/auth/lru-cache.js';

describe('LruCache', () => {
  it('drops entries when they expire', () => {
    let now = 0;
    const cache = new LruCache<string>(10, () => now);
    cache.set('a', 'A', 100);
    now = 99;
    expect(cache.get('a')).toBe('A');
    now = 100;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('stores nothing for a non-positive lifetime', () => {
    const cache = new LruCache<string>(10);
    cache.set('a', 'A', 0);
    cache.set('b', 'B', -5);
    expect(cache.size).toBe(0);
  });

  it('evicts the least recently used entry past its bound', () => {
    const cache = new LruCache<number>(2);
    cache.set('a', 1, 1000);
    cache.set('b', 2, 1000);
    expect(cache.get('a')).toBe(1); // a is now the most recently used
    cache.set('c', 3, 1000);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    expect(cache.size).toBe(2);
  });

  it('refuses a bound below one', () => {
    expect(() => new LruCache(0)).toThrow(RangeError);
  });
});
