// Verified access tokens, kept while in use so that a token is checked once, not on every request (an ES256
// signature costs about 0.7 ms). Keyed by the whole token, in order of last use. A token leaves when it expires,
// when it has not been used for `idleMs` (a client that refreshed its session has moved to a new token, and
// the old one would otherwise sit here until it expired: an hour of refreshes grew the function by megabytes,
// docs/PERFORMANCE.md "Soak"), or when the cache is full (the least recently used first).
// A token whose session ends before it expires is still refused: the database checks the session on every
// request (private.require_uid).
export interface TokenCache<T> {
  get(token: string): T | undefined;
  set(token: string, value: T, expiresAtMs: number): void;
  /** How many tokens it holds. */
  readonly size: number;
}

interface Entry<T> {
  value: T;
  expiresAtMs: number;
  usedAtMs: number;
}

export function createTokenCache<T>(maxEntries: number, idleMs: number): TokenCache<T> {
  const entries = new Map<string, Entry<T>>();

  /** Drops the least recently used while the cache is over its size or they have been idle too long. */
  const evict = (now: number) => {
    for (const [token, entry] of entries) {
      if (entries.size <= maxEntries && now - entry.usedAtMs < idleMs) break;
      entries.delete(token);
    }
  };

  return {
    get(token) {
      const entry = entries.get(token);
      if (!entry) return undefined;
      entries.delete(token);
      const now = Date.now();
      if (entry.expiresAtMs <= now || now - entry.usedAtMs >= idleMs) return undefined;
      entry.usedAtMs = now;
      entries.set(token, entry);
      return entry.value;
    },
    set(token, value, expiresAtMs) {
      const now = Date.now();
      entries.delete(token);
      entries.set(token, { value, expiresAtMs, usedAtMs: now });
      evict(now);
    },
    get size() {
      return entries.size;
    },
  };
}
