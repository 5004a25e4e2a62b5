// Postgres access for the facade. Every request is one transaction run *as the caller*, exactly as
// PostgREST does it: role and JWT claims are set with set_config(..., true) (transaction-local, safe on a
// transaction pooler), so RLS and the SQL functions see the same identity a supabase-js client would.
import postgres from 'postgres';
import type { Caller } from './tokens.ts';

export type Sql = postgres.Sql;
export type Transaction = postgres.TransactionSql;

export function createSql(url: string, max: number): Sql {
  // prepare: false because hosted projects reach Postgres through the transaction pooler.
  return postgres(url, { prepare: false, max, idle_timeout: 20, connect_timeout: 10, onnotice: () => {} });
}

export function asCaller<T>(sql: Sql, caller: Caller, work: (tx: Transaction) => Promise<T>): Promise<T> {
  const claims = JSON.stringify({ ...caller.claims, role: caller.role });
  return sql.begin(async (tx) => {
    // Sent at once and not awaited: the work's first query follows it on the same connection without
    // waiting for a round trip. Should it fail, the work runs as `authenticator`, which may do nothing.
    const identity = tx`select set_config('role', ${caller.role}, true), set_config('request.jwt.claims', ${claims}, true)`
      .execute();
    // A token whose session has ended (signed out, banned) is refused with a 401, also on routes open to
    // anonymous callers, rather than quietly taken for no token at all. Pipelined too: no extra round trip.
    const alive = caller.role === 'authenticated' ? tx`select private.require_uid()`.execute() : undefined;
    const [, , result] = await Promise.all([identity, alive, work(tx)]);
    return result;
  }) as Promise<T>;
}
