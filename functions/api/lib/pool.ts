// A pool of connections to one Postgres server (the primary, or a replica), and the bounded queue for them.
import postgres from 'postgres';
import { createPoolGate, type PoolGate } from './pool-gate.ts';

export interface Pool {
  sql: postgres.Sql;
  gate: PoolGate;
}

/** Requests beyond the pool that may wait for a connection, and for how long. */
const maxWaitingPerConnection = 8;
const maxWaitMs = 2_000;

// prepare: false because the facade reaches Postgres through a transaction pooler (supabase/CONVENTIONS.md).
// A connection lost again and again (a database restarting) is opened again after at most 1 s, not the
// 20 s postgres.js would wait in the end: requests wait for it, and the answer is due within the deadline.
// max_pipeline: 0 sends a statement only to a connection with nothing in flight (others wait in the driver's
// queue): postgres.js 3.4.9 pipelines onto busy connections by default, and when a statement waiting behind
// another is cancelled (its client went away) it hands that statement's answer to the next one, another
// caller's request, and never settles it (test/api/database-driver.test.ts). The gate already keeps to one
// statement per connection, but not past a request's deadline: it then gives the place up while the statement runs.
const backoff = (retries: number) => Math.min(0.05 * 2 ** retries, 1);
export const connectionOptions = {
  prepare: false,
  max_pipeline: 0,
  idle_timeout: 20,
  connect_timeout: 5,
  backoff,
  onnotice: () => {},
  connection: { application_name: 'api' },
};

/**
 * Connection options for a connection never taken with `reserve()`: it skips postgres.js's query of the array
 * types when it opens (a round trip, 7–17 ms off a cold start's first read; the facade sends SQL text, no typed
 * arrays). postgres.js 3.4.9's `reserve()` never resolves on a connection opened without that query, so the
 * primary's pool, which reserves connections for transactions, keeps it.
 */
export const unreservedOptions = { ...connectionOptions, fetch_types: false };

/**
 * A list sent as one parameter on a connection with `unreservedOptions`, which knows no array types (postgres.js
 * would send a JS array as `a,b`): Postgres's array literal, every element quoted, cast in the SQL (`::uuid[]`).
 */
export function arrayLiteral(values: string[]): string {
  return `{${values.map((value) => `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`;
}

/** A pool; `reserved`: whether transactions take its connections with `reserve()` (the primary's). */
export function openPool(url: string, max: number, reserved: boolean): Pool {
  return {
    sql: postgres(url, { ...(reserved ? connectionOptions : unreservedOptions), max }),
    gate: createPoolGate(max, max * maxWaitingPerConnection, maxWaitMs),
  };
}
