// The typed call of a public function as SQL text: names and arguments are typed from the generated database
// types, so a renamed function or parameter fails the type check instead of a request. lib/rpc.ts runs it for a
// route; a caller that runs its own transaction (transactionAs) runs the statement itself. Together they are the
// facade's only door to public's functions (test/api/sql-door.test.ts refuses SQL text that calls one elsewhere).
import type { Database } from '../database.types.ts';
import { literal, SqlText } from './sql-text.ts';

type Functions = Database['public']['Functions'];
export type ApiFunction = keyof Functions;
export type Args<F extends ApiFunction> = Functions[F]['Args'];

/** `public.<fn>(name => value, …)`: the call's SQL. */
export function invocation<F extends ApiFunction>(fn: F, args: Args<F>): string {
  const entries = Object.entries(args as Record<string, unknown>).filter(([, value]) => value !== undefined);
  // Function and parameter names come from the typed signature, never from the request.
  const list = entries.map(([name, value]) => `${name} => ${literal(value)}`).join(', ');
  return `public.${String(fn)}(${list})`;
}

/** The call as a statement whose one column, `result`, is the function's answer. */
export function rpcStatement<F extends ApiFunction>(fn: F, args: Args<F>): SqlText {
  return new SqlText(`select ${invocation(fn, args)} as result`);
}
