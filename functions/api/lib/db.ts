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
import { type CallerEvents, listenForCallerEvents } from './caller-events.ts';
import { databaseUnavailable, isConnectionFailure } from './errors.ts';
import { createPoolGate, type PoolGate } from './pool-gate.ts';
import { openPool, type Pool, unreservedOptions } from './pool.ts';
import { createReplicas, type Replicas } from './replicas.ts';
import { noteQuota, type RequestQuota, takeQuota } from './request-quota.ts';
import type { RequestScope } from './scope.ts';
import { createRoleSettings, type RoleSettings } from './role-settings.ts';
import { literal, sql, SqlText } from './sql-text.ts';
import type { Caller } from './tokens.ts';

export interface Database extends Pool {
  /** A connection of its own for /health and the role settings, so a busy pool does not look like a down database. */
  probe: postgres.Sql;
  roleSettings: RoleSettings;
  /** Where requests that only read may go instead (none: all go to the primary). */
  replicas: Replicas;
  /** Sessions ended and writes counted of late, as the primary tells them (only with replicas). */
  callerEvents?: CallerEvents;
  /**
   * The places long reads (an export, which holds its connection while its client reads) may take: a quarter of
   * the pool, so that however many accounts export at once, with however slow readers, every other request keeps
   * three quarters of the connections. A long read beyond them waits its turn, then is answered 503.
   */
  longReads: PoolGate;
}

/**
 * The database, and the request whose statements run on it: lib/context.ts's RequestDeps is one (not named from
 * there, since context.ts imports this file).
 */
type RequestDb = { db: Database; request: RequestScope };

/** How long a transaction may take before the request is answered 503 (the role timeouts are 3 s and 8 s). */
const deadlineMs = 15_000;
/** Long reads that may wait for a place of their own, per place, and for how long. */
const longReadsWaitingPerPlace = 4;
const longReadsWaitMs = 10_000;
/** Where the facade's databases are. */
export interface DatabaseUrls {
  /** The primary, as requests reach it (the transaction pooler, when there is one). */
  primary: string;
  /** The primary itself, for the connection that listens to it (LISTEN needs a session of its own). */
  direct: string;
  /** The read replicas (none: every request goes to the primary). */
  replicas: string[];
}

export function createDatabase(urls: DatabaseUrls, max: number, maxLagMs = 0): Database {
  const probe = postgres(urls.primary, { ...unreservedOptions, max: 1 });
  const replicas = createReplicas(probe, urls.replicas, max, maxLagMs);
  const callerEvents = replicas.configured ? listenForCallerEvents(urls.direct, maxLagMs) : undefined;
  const longReads = createPoolGate(Math.max(1, Math.floor(max / 4)), max * longReadsWaitingPerPlace, longReadsWaitMs);
  return {
    ...openPool(urls.primary, max, true),
    probe,
    roleSettings: createRoleSettings(probe),
    replicas,
    callerEvents,
    longReads,
  };
}

/**
 * Whether `error` means the connection is gone: the server ends the session after a FATAL error, and PgBouncer
 * reports the loss of its server connection as class 08 ("server conn crashed?", 08P01), then closes ours.
 */
export function lostConnection(error: unknown): boolean {
  const { severity, code } = (error ?? {}) as { severity?: unknown; code?: unknown };
  return isConnectionFailure(error) || severity === 'FATAL' || severity === 'PANIC' || String(code).startsWith('08');
}

/** Which statements a transaction begins with, beyond the caller's role and claims. */
export interface Preamble {
  /** The session check (only on the primary: a replica may not have replayed a sign-out yet). */
  checkSession: boolean;
  /** Counting a signed-in caller's write, for the replicas (supabase/schemas/23_replica_reads.sql). */
  countWrite: boolean;
}

/**
 * What a request runs on the primary begins with: the session check, and, when there are replicas to know it,
 * the count of a request that may write.
 */
function primaryPreamble({ db, request }: RequestDb): Preamble {
  return { checkSession: true, countWrite: db.replicas.configured && !request.readOnly };
}

/** The statements that make the transaction the caller's: the role's settings, role and claims, then the preamble's. */
export async function identity(db: Database, caller: Caller, preamble: Preamble): Promise<SqlText> {
  const claims = JSON.stringify({ ...caller.claims, role: caller.role });
  const settings = [...await db.roleSettings(caller.role), ['role', caller.role], ['request.jwt.claims', claims]];
  const statements = [
    `select ${settings.map(([name, value]) => `set_config(${literal(name)}, ${literal(value)}, true)`).join(', ')};`,
  ];
  if (caller.role === 'authenticated') {
    // A token whose session has ended (signed out, banned) is refused with a 401, also on routes open to
    // anonymous callers, rather than quietly taken for no token at all. (A session that has not proved the account's
    // second factor is alive: what it may do, each function decides; private.uid().)
    if (preamble.checkSession) statements.push('select private.require_session_uid();');
    if (preamble.countWrite) statements.push('select private.note_write();');
  }
  return new SqlText(statements.join(' '));
}

/**
 * Holds a place in the gate while `work` runs; past the deadline answers 503 and gives the place up (work that
 * never ends, on a connection that hangs, does not keep it for good). Work that makes progress step by step
 * (reading in batches) calls `alive` after each step: the deadline then counts from the last one.
 */
async function gated<T>(
  pool: Pool,
  signal: AbortSignal | undefined,
  work: (alive: () => void) => Promise<T>,
): Promise<T> {
  const leave = await pool.gate.enter(signal);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let settled = false;
  let expire!: (error: unknown) => void;
  const late = new Promise<never>((_, reject) => (expire = reject));
  const alive = () => {
    if (settled) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      leave();
      expire(databaseUnavailable('The database did not answer in time'));
    }, deadlineMs);
  };
  alive();
  const running = work(alive);
  running.then(leave, leave);
  try {
    return await Promise.race([running, late]);
  } finally {
    settled = true;
    clearTimeout(timer);
  }
}

/**
 * One statement as the caller on the primary: one transaction, one round trip. When the request's signal
 * aborts (its client went away) the statement is cancelled in the database.
 */
export async function queryOnPrimary(
  using: RequestDb,
  caller: Caller,
  statement: SqlText,
): Promise<postgres.RowList<postgres.Row[]>> {
  const preamble = await identity(using.db, caller, primaryPreamble(using));
  const { signal, quota } = using.request;
  return runOn(using.db, signal, `${takeQuota(quota, caller).text} ${preamble.text} ${statement.text}`, quota);
}

/**
 * Runs a text of one or more statements, as one transaction, in one round trip; answers the last one's rows
 * (and keeps what the request's quota left, when the text took it). A text that takes the quota in the database
 * waits outside the gate for this process's counts to be written (the write needs a place in it).
 */
export async function runOn(
  pool: Pool,
  signal: AbortSignal | undefined,
  text: string,
  requestQuota?: RequestQuota,
): Promise<postgres.RowList<postgres.Row[]>> {
  await requestQuota?.ready;
  return gated(pool, signal, async () => {
    try {
      return await send(pool, signal, text, requestQuota);
    } catch (error) {
      // postgres.js 3.4.9 keeps the error of a connection that died mid-statement, and hands it to the first
      // statement of the next connection it opens in its place before sending that statement: one that never
      // reached the server is sent again, once.
      if (!(error instanceof NeverSent)) throw error;
      return await send(pool, signal, text, requestQuota).catch((again) => {
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

async function send(
  pool: Pool,
  signal: AbortSignal | undefined,
  text: string,
  requestQuota?: RequestQuota,
): Promise<postgres.RowList<postgres.Row[]>> {
  const query = pool.sql.unsafe(text).execute();
  const cancel = () => query.cancel();
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    const answer = await query as unknown as postgres.RowList<postgres.Row[]> | postgres.RowList<postgres.Row[]>[];
    noteQuota(requestQuota, answer);
    // A text of several statements answers a list of rows for each; of one statement, its rows.
    return Array.isArray(answer[0])
      ? (answer as postgres.RowList<postgres.Row[]>[]).at(-1)!
      : answer as postgres.RowList<postgres.Row[]>;
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
export async function transactionAs<T>(
  using: RequestDb,
  caller: Caller,
  work: (run: (statement: SqlText) => Promise<postgres.Row[]>) => Promise<T>,
): Promise<T> {
  const { signal, quota } = using.request;
  const take = takeQuota(quota, caller);
  await quota?.ready;
  return gated(using.db, signal, async () => {
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
      const preamble = await identity(using.db, caller, primaryPreamble(using));
      noteQuota(quota, await run(new SqlText(`${take.text} begin; ${preamble.text}`)));
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

/** Runs one statement of a transaction, and answers its rows. */
export type RunStatement = (statement: SqlText) => Promise<postgres.Row[]>;

/**
 * A read-only transaction as the caller, of one snapshot (repeatable read), whose statements `work` runs one after
 * another: for an answer too large to hold at once, read a page per statement, so that only a page is in memory
 * and each statement has the role's statement timeout to itself, whatever the whole takes. `opening` runs first,
 * with the session check, so that its refusal is an ordinary error before anything is read. On a connection of its
 * own, with the deadline counted from the last statement (a connection that hangs, or a client that stops
 * reading, ends it); rolled back at the end (it only reads).
 */
export async function readPageByPageAs(
  using: RequestDb,
  caller: Caller,
  opening: SqlText,
  work: (run: RunStatement) => Promise<void>,
): Promise<void> {
  const { signal, quota } = using.request;
  const take = takeQuota(quota, caller);
  await quota?.ready;
  return gated(using.db, signal, async (alive) => {
    const tx = await using.db.sql.reserve();
    let lost = false;
    const run = async (statement: SqlText) => {
      const rows = await tx.unsafe(statement.text);
      alive();
      return rows;
    };
    try {
      const preamble = await identity(using.db, caller, { checkSession: true, countWrite: false });
      noteQuota(
        quota,
        await tx.unsafe(
          `${take.text} begin isolation level repeatable read read only; ${preamble.text} ${opening.text};`,
        ),
      );
      await work(run);
    } catch (error) {
      lost = lostConnection(error);
      throw error;
    } finally {
      if (!lost) {
        await tx.unsafe('rollback').catch(() => undefined);
        tx.release();
      }
    }
  });
}
