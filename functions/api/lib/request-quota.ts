// The request limits (supabase/schemas/26_request_limits.sql): a request is counted once, for its signed-in
// account and its client's address, before its own statements run, so a request that then fails still counts.
// Counted per instance and flushed (request-counter.ts): while this process knows the request's keys in their
// current window and they are far from their limit, it admits the request itself, with no statement on the
// primary, and writes the count within seconds (request-counter.ts). Otherwise the request takes its quota in the
// database, in a transaction of its own riding at the head of its first round trip to the primary (for an
// anonymous read a replica serves, a statement of its own sent alongside), once this process's counts of its
// keys are written; the answer tells this process each key's state.
import { type Quota, tighterQuota } from './limits.ts';
import type { KeyState, RequestCounter } from './request-counter.ts';
import { sql, SqlText } from './sql-text.ts';
import type { Caller } from './tokens.ts';

/** One request's quota: where it comes from, whether it has been taken yet, and what the take left. */
export interface RequestQuota {
  /** The client's address, as the gateway in front of the function reports it (none: unknown). */
  address?: string;
  /** This process's counts (lib/deps.ts). */
  counter: RequestCounter;
  taken: boolean;
  /** Taken in the database: its keys as this process names them, for keeping what the take answers. */
  keys?: { account?: string; address?: string };
  /** Resolves when the database take may be sent: this process's counts of the request's keys are written. */
  ready?: Promise<void>;
  /** What is left of the tighter limit once taken (RateLimit-* headers); none: no limit applies, or unknown. */
  left?: Quota;
}

/** What private.take_request_quota answers: each key's state (null: no key, or no limit). */
interface TakeAnswer {
  account: KeyState | null;
  address: KeyState | null;
}

/**
 * Takes the request's quota the first time it is asked for (after that, nothing): here, answering no statement,
 * or in the database, answering the statements that take it (send them once `quota.ready` resolves).
 * `commit` ends the implicit transaction of a simple-protocol message (the statements after it run in a new
 * one); its warning that no explicit transaction is open is silenced for that transaction only.
 */
export function takeQuota(quota: RequestQuota | undefined, caller: Caller): SqlText {
  if (!quota || quota.taken) return new SqlText('');
  quota.taken = true;
  const account = caller.role === 'authenticated' ? caller.userId : null;
  const keys = {
    account: account === null ? undefined : `account:${account}`,
    address: quota.address === undefined ? undefined : `address:${quota.address}`,
  };
  const admission = quota.counter.admit([keys.account, keys.address].filter((key) => key !== undefined));
  if (admission.local) {
    quota.left = admission.left;
    return new SqlText('');
  }
  quota.keys = keys;
  quota.ready = admission.written;
  const take = sql`select set_config('client_min_messages', 'error', true), private.take_request_quota(${account}, ${
    quota.address ?? null
  }) as request_quota;`;
  return new SqlText(`${take.text} commit;`);
}

/**
 * Keeps what a database take answered, from the answer of the message it rode in (the rows of one statement,
 * or of each). A message that failed after the take answers nothing: that request's answer carries no
 * RateLimit-* headers, and this process asks the database again for its keys' next request.
 */
export function noteQuota(quota: RequestQuota | undefined, answer: readonly unknown[]): void {
  if (!quota?.keys) return;
  const results = Array.isArray(answer[0]) ? answer as unknown[][] : [answer];
  const row = results.find((rows) => rows[0] && typeof rows[0] === 'object' && 'request_quota' in rows[0])?.[0] as {
    request_quota: TakeAnswer;
  } | undefined;
  if (!row) return;
  for (const scope of ['account', 'address'] as const) {
    const key = quota.keys[scope];
    const state = row.request_quota[scope];
    if (key) quota.counter.learn(key, state);
    if (state?.limit !== undefined && state.remaining !== undefined) {
      quota.left = tighterQuota(quota.left, { limit: state.limit, remaining: state.remaining, reset: state.reset });
    }
  }
  quota.keys = undefined;
}
