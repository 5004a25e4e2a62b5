// The write and request limits as a client sees them (supabase/schemas/24_write_limits.sql,
// 26_request_limits.sql): the quota a limit reports, and the RateLimit-* headers that tell it.
/** A write or request limit's state: its size, what is left, seconds until its window ends. */
export interface Quota {
  limit: number;
  remaining: number;
  reset: number;
}

/** The quota a limit reports as JSON (a refusal's DETAIL, or daykeeper.write_quota after a write); else undefined. */
export function parseQuota(text: string | null | undefined): Quota | undefined {
  if (!text) return undefined;
  try {
    const { limit, remaining, reset } = JSON.parse(text);
    return [limit, remaining, reset].every(Number.isInteger) ? { limit, remaining, reset } : undefined;
  } catch {
    return undefined;
  }
}

/** RateLimit-Limit, -Remaining and -Reset (seconds), as the IETF draft names them. */
export function quotaHeaders(quota: Quota): [string, string][] {
  return [['RateLimit-Limit', String(quota.limit)], ['RateLimit-Remaining', String(quota.remaining)], [
    'RateLimit-Reset',
    String(quota.reset),
  ]];
}

/**
 * Of a request limit and a write limit one answer counted against, the one to report: the draft's fields
 * describe one quota, and the nearer to its end is the one a client must slow down for (the later reset on a tie).
 */
export function tighterQuota(a: Quota | undefined, b: Quota | undefined): Quota | undefined {
  if (!a || !b) return a ?? b;
  if (a.remaining !== b.remaining) return a.remaining < b.remaining ? a : b;
  return a.reset >= b.reset ? a : b;
}
