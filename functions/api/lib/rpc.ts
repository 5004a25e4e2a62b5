// One API request, one SQL function: call public.<fn> as the caller, in one transaction, and return its
// JSON, typed by lib/rpc-statement.ts.
import type { RequestDeps } from './context.ts';
import { parseQuota } from './limits.ts';
import type { Idempotency } from './idempotency.ts';
import { queryAs } from './query.ts';
import { type ApiFunction, type Args, invocation, rpcStatement } from './rpc-statement.ts';
import { literal, SqlText } from './sql-text.ts';
import type { Caller } from './tokens.ts';

export async function rpc<F extends ApiFunction>(
  deps: RequestDeps,
  caller: Caller,
  fn: F,
  args: Args<F>,
  /** A create sent with an Idempotency-Key: a retry gets the first answer (supabase/schemas/25_idempotent_creates.sql). */
  idempotency?: Idempotency,
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  // COALESCE evaluates the create only when there is no first answer to give again.
  const call = idempotency
    ? `select coalesce(private.replay_idempotent(${literal(idempotency.key)}, ${literal(idempotency.fingerprint)}), ` +
      `private.record_idempotent(${literal(idempotency.key)}, ${invocation(fn, args)})) as result`
    : rpcStatement(fn, args).text;
  if (deps.request.readOnly) return (await queryAs(deps, caller, new SqlText(call)))[0].result;
  // A write may count against a write limit, which leaves what is left in daykeeper.write_quota: read after the
  // call (the subquery runs first), for the answer's RateLimit-* headers.
  const [row] = await queryAs(
    deps,
    caller,
    new SqlText(`select r.result, current_setting('daykeeper.write_quota', true) as quota from (${call} offset 0) r`),
  );
  const quota = parseQuota(row.quota);
  if (quota) deps.request.onWriteQuota(quota);
  return row.result;
}
