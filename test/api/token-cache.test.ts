// The facade's cache of verified access tokens (functions/api/lib/token-cache.ts) on its own: what it answers
// from memory, and what it lets go of (expired tokens, tokens nobody uses any more, the oldest when full).
// Through the facade: test/api/token-rules.test.ts.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTokenCache } from '../../functions/api/lib/token-cache.ts';

const minute = 60_000;
const hourFromNow = () => Date.now() + 60 * minute;

describe('the verified-token cache', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-28T03:00:00Z'));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers a token in use until it expires, and not after', () => {
    const cache = createTokenCache<string>(10, 5 * minute);
    cache.set('a', 'caller a', Date.now() + 10 * minute);
    for (let i = 0; i < 9; i++) {
      vi.advanceTimersByTime(minute);
      expect(cache.get('a')).toBe('caller a');
    }
    vi.advanceTimersByTime(minute);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('lets go of a token left idle once a new one comes, as after a refresh', () => {
    const cache = createTokenCache<string>(10, 5 * minute);
    cache.set('before refresh', 'caller', hourFromNow());
    vi.advanceTimersByTime(4 * minute);
    cache.set('after refresh', 'caller', hourFromNow());
    expect(cache.size).toBe(2);
    vi.advanceTimersByTime(2 * minute);
    expect(cache.get('after refresh')).toBe('caller');
    cache.set('another client', 'other', hourFromNow());
    // Idle for six minutes: gone, though it would be valid for most of an hour.
    expect(cache.size).toBe(2);
    expect(cache.get('before refresh')).toBeUndefined();
    expect(cache.get('after refresh')).toBe('caller');
  });

  it('does not answer a token idle too long even before anything evicts it', () => {
    const cache = createTokenCache<string>(10, 5 * minute);
    cache.set('quiet', 'caller', hourFromNow());
    vi.advanceTimersByTime(5 * minute);
    expect(cache.get('quiet')).toBeUndefined();
  });

  it('when full, lets go of the least recently used first', () => {
    const cache = createTokenCache<string>(2, 5 * minute);
    cache.set('a', 'A', hourFromNow());
    cache.set('b', 'B', hourFromNow());
    expect(cache.get('a')).toBe('A');
    cache.set('c', 'C', hourFromNow());
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe('A');
    expect(cache.get('c')).toBe('C');
  });
});
