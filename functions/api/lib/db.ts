// Postgres access for the facade. Every request is one transaction run *as the caller*, exactly as
// PostgREST does it: the role's own statement and lock timeouts, the role and the JWT claims are set with
// set_config(..., true) (transaction-local, safe on a transaction pooler), so RLS and the SQL functions see
// the same identity, under the same limits, a supabase-js client would.
//
// A request of one statement is one simple-protocol message: settings, session check and statement, which
// Postgres runs as one implicit transaction (rolled back whole on an error), in one round trip. Nothing is
// sent again on a connection that failed: postgres.js 3.4.9 throws outside any promise when it writes to a
// socket that has closed (porsager/postgres#1208), which would end the process.
import postgres from 'postgres';
import { databaseUnavailable, isConnectionFailure } from './errors.ts';
import { createPoolGate, type PoolGate } from './pool-gate.ts';
import { createRoleSettings, type RoleSettings } from './role-settings.ts';
import { literal, sql, SqlText } from './sql-text.ts';
import type { Caller } from './tokens.ts';

export interface Database {
  sql: postgres.Sql;
  gate: PoolGate;
  /** A connection of its own for /health and the role settings, so a busy pool does not look like a down database. */
  probe: postgres.Sql;
  roleSettings: RoleSettings;
}

/** The database, and the request's signal, which aborts when its client goes away. */
interface Using {
  db: Database;
  signal?: AbortSignal;
}

/** How long a transaction may take before the request is answered 503 (the role timeouts are 3 s and 8 s). */
const deadlineMs = 15_000;
/** Requests beyond the pool that may wait for a connection, and for how long. */
const maxWaitingPerConnection = 8;
const maxWaitMs = 2_000;

export function createDatabase(url: string, max: number): Database {
  // prepare: false because hosted projects reach Postgres through the transaction pooler.
  // A connection lost again and again (a database restarting) is opened again after at most 1 s, not the
  // 20 s postgres.js would wait in the end: requests wait for it, and the answer is due within the deadline.
  const backoff = (retries: number) => Math.min(0.05 * 2 ** retries, 1);
  const options = { prepare: false, idle_timeout: 20, connect_timeout: 5, backoff, onnotice: () => {}, connection: { application_name: 'api' } };
  const probe = postgres(url, { ...options, max: 1 });
  return {
    sql: postgres(url, { ...options, max }),
    gate: createPoolGate(max, max * maxWaitingPerConnection, maxWaitMs),
    probe,
    roleSettings: createRoleSettings(probe),
  };
}

/** Whether `error` means the connection is gone (the server ends the session after a FATAL error). */
function lostConnection(error: unknown): boolean {
  const { severity } = (error ?? {}) as { severity?: unknown };
  return isConnectionFailure(error) || severity === 'FATAL' || severity === 'PANIC';
}

/** The statements that make the transaction the caller's: the role's settings, role and claims, then the session check. */
async function identity(db: Database, caller: Caller): Promise<SqlText> {
  const claims = JSON.stringify({ ...caller.claims, role: caller.role });
  const settings = [...await db.roleSettings(caller.role), ['role', caller.role], ['request.jwt.claims', claims]];
  const applied = `select ${settings.map(([name, value]) => `set_config(${literal(name)}, ${literal(value)}, true)`).join(', ')};`;
  // A token whose session has ended (signed out, banned) is refused with a 401, also on routes open to
  // anonymous callers, rather than quietly taken for no token at all.
  return new SqlText(caller.role === 'authenticated' ? `${applied} select private.require_uid();` : applied);
}

/**
 * Holds a place in the gate while `work` runs; past the deadline answers 503 and gives the place up (work that
 * never ends, on a connection that hangs, does not keep it for good).
 */
async function gated<T>({ db, signal }: Using, work: () => Promise<T>): Promise<T> {
  const leave = await db.gate.enter(signal);
  const running = work();
  running.then(leave, leave);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      leave();
      reject(databaseUnavailable('The database did not answer in time'));
    }, deadlineMs);
  });
  try {
    return await Promise.race([running, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One statement as the caller: one transaction, one round trip. When the request's signal aborts (its client
 * went away) the statement is cancelled in the database.
 */
export function queryAs(using: Using, caller: Caller, statement: SqlText): Promise<postgres.RowList<postgres.Row[]>> {
  return gated(using, async () => {
    const text = `${(await identity(using.db, caller)).text} ${statement.text}`;
    try {
      return await send(using, text);
    } catch (error) {
      // postgres.js 3.4.9 keeps the error of a connection that died mid-statement, and hands it to the first
      // statement of the next connection it opens in its place before sending that statement: one that never
      // reached the server is sent again, once.
      if (!(error instanceof NeverSent)) throw error;
      return await send(using, text).catch((again) => {
        throw again instanceof NeverSent ? again.reason : again;
      });
    }
  });
}

/** A failure of a statement that was never sent to the server. */
class NeverSent extends Error {
  constructor(readonly reason: unknown) {
    super('never sent');
  }
}

async function send({ db, signal }: Using, text: string): Promise<postgres.RowList<postgres.Row[]>> {
  const query = db.sql.unsafe(text).execute();
  const cancel = () => query.cancel();
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    const results = await query as unknown as postgres.RowList<postgres.Row[]>[];
    return results[results.length - 1];
  } catch (error) {
    // postgres.js gives a statement the server session it is sent on (its state, null until then).
    throw !(query as { state?: unknown }).state && lostConnection(error) ? new NeverSent(error) : error;
  } finally {
    signal?.removeEventListener('abort', cancel);
  }
}

/**
 * A transaction as the caller in which `work` may wait for something else between statements (a call to
 * Auth): committed when `work` resolves, rolled back when it throws, on a connection of its own.
 */
export function transactionAs<T>(using: Using, caller: Caller, work: (run: (statement: SqlText) => Promise<postgres.Row[]>) => Promise<T>): Promise<T> {
  return gated(using, async () => {
    const tx = await using.db.sql.reserve();
    let lost = false;
    const run = async (statement: SqlText): Promise<postgres.Row[]> => {
      try {
        return await tx.unsafe(statement.text);
      } catch (error) {
        lost ||= lostConnection(error);
        throw error;
      }
    };
    try {
      await run(new SqlText(`begin; ${(await identity(using.db, caller)).text}`));
      const value = await work(run);
      await run(sql`commit`);
      return value;
    } catch (error) {
      // Nothing more goes to a connection that is gone.
      if (!lost) await run(sql`rollback`).catch(() => undefined);
      throw error;
    } finally {
      if (!lost) tx.release();
    }
  });
}
