// Verified access tokens, kept until they expire so that a token is checked once, not on every request
// (an ES256 signature costs about 0.7 ms). Keyed by the whole token; the least recently used go first.
// A token whose session ends before it expires is still refused: the database checks the session on every
// request (private.require_uid).
export interface TokenCache<T> {
  get(token: string): T | undefined;
  set(token: string, value: T, expiresAtMs: number): void;
}

export function createTokenCache<T>(maxEntries: number): TokenCache<T> {
  const entries = new Map<string, { value: T; expiresAtMs: number }>();
  return {
    get(token) {
      const entry = entries.get(token);
      if (!entry) return undefined;
      entries.delete(token);
      if (entry.expiresAtMs <= Date.now()) return undefined;
      entries.set(token, entry);
      return entry.value;
    },
    set(token, value, expiresAtMs) {
      entries.delete(token);
      entries.set(token, { value, expiresAtMs });
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    },
  };
}
