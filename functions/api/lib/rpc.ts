// One API request, one SQL function: call public.<fn> as the caller, in one transaction, and return its
// JSON. Names and arguments are typed from the generated database types, so a renamed function or
// parameter fails the type check instead of a request. This is the facade's only door to public's functions
// (test/api/sql-door.test.ts refuses SQL text that calls one elsewhere).
import type { Database } from '../database.types.ts';
import type { Deps } from './context.ts';
import { parseQuota } from './errors.ts';
import type { Idempotency } from './idempotency.ts';
import { queryAs } from './query.ts';
import { literal, SqlText } from './sql-text.ts';
import type { Caller } from './tokens.ts';

type Functions = Database['public']['Functions'];
export type ApiFunction = keyof Functions;

type Args<F extends ApiFunction> = Functions[F]['Args'];

/** `public.<fn>(name => value, …)`: the typed call's SQL. */
function invocation<F extends ApiFunction>(fn: F, args: Args<F>): string {
  const entries = Object.entries(args as Record<string, unknown>).filter(([, value]) => value !== undefined);
  // Function and parameter names come from the typed signature, never from the request.
  const list = entries.map(([name, value]) => `${name} => ${literal(value)}`).join(', ');
  return `public.${String(fn)}(${list})`;
}

/** The typed call as a statement whose one column, `result`, is the function's answer: for a caller that runs it itself. */
export function rpcStatement<F extends ApiFunction>(fn: F, args: Args<F>): SqlText {
  return new SqlText(`select ${invocation(fn, args)} as result`);
}

export async function rpc<F extends ApiFunction>(
  deps: Deps,
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
  if (deps.readOnly) return (await queryAs(deps, caller, new SqlText(call)))[0].result;
  // A write may count against a write limit, which leaves what is left in daykeeper.write_quota: read after the
  // call (the subquery runs first), for the answer's RateLimit-* headers.
  const [row] = await queryAs(deps, caller, new SqlText(`select r.result, current_setting('daykeeper.write_quota', true) as quota from (${call} offset 0) r`));
  const quota = parseQuota(row.quota);
  if (quota) deps.onWriteQuota?.(quota);
  return row.result;
}
