// One API request, one SQL function: call public.<fn> as the caller, in one transaction, and return its
// JSON. Names and arguments are typed from the generated database types, so a renamed function or
// parameter fails the type check instead of a request.
import type { Database } from '../database.types.ts';
import type { Deps } from './context.ts';
import { parseQuota } from './errors.ts';
import type { Idempotency } from './idempotency.ts';
import { queryAs } from './query.ts';
import { literal, SqlText } from './sql-text.ts';
import type { Caller } from './tokens.ts';

type Functions = Database['public']['Functions'];
export type ApiFunction = keyof Functions;

export async function rpc<F extends ApiFunction>(
  deps: Deps,
  caller: Caller,
  fn: F,
  args: Functions[F]['Args'],
  /** A create sent with an Idempotency-Key: a retry gets the first answer (supabase/schemas/25_idempotent_creates.sql). */
  idempotency?: Idempotency,
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const entries = Object.entries(args as Record<string, unknown>).filter(([, value]) => value !== undefined);
  // Function and parameter names come from the typed signature above, never from the request.
  const list = entries.map(([name, value]) => `${name} => ${literal(value)}`).join(', ');
  const invocation = `public.${String(fn)}(${list})`;
  // COALESCE evaluates the create only when there is no first answer to give again.
  const call = idempotency
    ? `select coalesce(private.replay_idempotent(${literal(idempotency.key)}, ${literal(idempotency.fingerprint)}), ` +
      `private.record_idempotent(${literal(idempotency.key)}, ${invocation})) as result`
    : `select ${invocation} as result`;
  if (deps.readOnly) return (await queryAs(deps, caller, new SqlText(call)))[0].result;
  // A write may count against a write limit, which leaves what is left in daykeeper.write_quota: read after the
  // call (the subquery runs first), for the answer's RateLimit-* headers.
  const [row] = await queryAs(deps, caller, new SqlText(`select r.result, current_setting('daykeeper.write_quota', true) as quota from (${call} offset 0) r`));
  const quota = parseQuota(row.quota);
  if (quota) deps.onWriteQuota?.(quota);
  return row.result;
}
