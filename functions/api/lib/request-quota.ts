// The request limits (supabase/schemas/26_request_limits.sql): a request is counted once, for its signed-in
// account and its client's address, in a transaction of its own that commits before the request's own
// statements run, so a request that then fails still counts. It rides at the head of the request's first
// round trip to the primary: no round trip of its own, but for an anonymous read a replica serves.
import type { Quota } from './limits.ts';
import { sql, SqlText } from './sql-text.ts';
import type { Caller } from './tokens.ts';

/** One request's quota: where it comes from, whether it has been taken yet, and what the take left. */
export interface RequestQuota {
  /** The client's address, as the gateway in front of the function reports it (none: unknown). */
  address?: string;
  taken: boolean;
  /** What is left of the tighter limit once taken (RateLimit-* headers); none: no limit applies, or unknown. */
  left?: Quota;
}

/**
 * The statements that take the request's quota, the first time they are asked for (after that, nothing).
 * `commit` ends the implicit transaction of a simple-protocol message (the statements after it run in a new
 * one); its warning that no explicit transaction is open is silenced for that transaction only.
 */
export function takeQuota(quota: RequestQuota | undefined, caller: Caller): SqlText {
  if (!quota || quota.taken) return new SqlText('');
  quota.taken = true;
  const account = caller.role === 'authenticated' ? caller.userId : null;
  const take = sql`select set_config('client_min_messages', 'error', true), private.take_request_quota(${account}, ${
    quota.address ?? null
  }) as request_quota;`;
  return new SqlText(`${take.text} commit;`);
}

/**
 * Keeps what the take left, from the answer of the message it rode in (the rows of one statement, or of each).
 * A message that failed after the take answers nothing: that request's answer carries no RateLimit-* headers.
 */
export function noteQuota(quota: RequestQuota | undefined, answer: readonly unknown[]): void {
  if (!quota?.taken || quota.left) return;
  const results = Array.isArray(answer[0]) ? answer as unknown[][] : [answer];
  const row = results.find((rows) => rows[0] && typeof rows[0] === 'object' && 'request_quota' in rows[0])?.[0] as {
    request_quota: Quota | null;
  } | undefined;
  if (row?.request_quota) quota.left = row.request_quota;
}
