// What a replica read needs from the primary, so that it asks nothing of its own: the sessions that just ended
// (sign-out, ban, password reset, deletion) and the accounts just blocked (what they may see shrank), pushed by
// triggers with pg_notify on the channel `replica_reads` (supabase/schemas/23_replica_reads.sql), and the callers'
// write counts, read on the same connection, straight to the primary (LISTEN needs a session: not the transaction
// pooler). A write announces nothing: Postgres commits notifying transactions one at a time.
//
// Why this holds the rules of docs/PRODUCT.md, "Reads and replicas": a replica within the staleness bound has
// replayed every commit older than the bound, and checks the caller's session and write count itself
// (private.replica_ready). What it may lack is only what committed within the bound: the ends and blocks are
// kept here for the bound (plus a margin for the lag's measurement), and a caller with one among them is read on the
// primary; a caller is read on a replica that has replayed as many writes as the primary counts for them. So each
// signed-in replica read waits for a statement on the listening connection that began after the read arrived
// (the write counts of the callers that arrive meanwhile, one statement for all of them): it sees every write
// committed before, and the backend sends every notice it was signalled before it answers (a commit signals the
// listening backend before its own client hears back, but that backend sends the notice when it next runs). While
// the connection is down, and until it has been up for a whole bound, nothing is known: reads then ask the primary
// as before (`writesToSee` answers undefined). A connection that dies without closing (a network cut) loses notices
// unseen: the replica's own check then holds them once replayed, within the bound.
import postgres from 'postgres';
import { arrayLiteral, unreservedOptions } from './pool.ts';

const channel = 'replica_reads';
/** Beyond the staleness bound: the lag is measured every quarter second, so a replica may be that much further. */
const marginMs = 1_000;
const reconnectMs = 1_000;
/** A round trip on the listening connection slower than this sends the read to the primary. */
const roundTripBoundMs = 1_000;

/** The write counts one round trip read: the callers asked for (none counted: 0), or undefined when it failed. */
type Counts = Map<string, number> | undefined;

export interface CallerEvents {
  /**
   * How many writes a replica must have replayed before it serves `userId`'s read (the primary's count); 'primary'
   * when the caller was blocked within the bound (what they may see shrank: read them on the primary); or
   * undefined when the primary must be asked: the caller's session ended within the bound, or this instance has
   * not been listening for a whole bound, or has not heard in time what committed before the call.
   */
  writesToSee(userId: string): Promise<number | 'primary' | undefined>;
}

export function listenForCallerEvents(url: string, maxLagMs: number): CallerEvents {
  const keepMs = maxLagMs + marginMs;
  /** When the connection began listening; undefined while it is down. */
  let listeningSince: number | undefined;
  const ended = new Map<string, number>();
  const blocked = new Map<string, number>();
  let prunedAt = 0;

  // Not postgres.js's listen(), which reconnects on its own without saying when the connection was down:
  // its onnotify hook (missing from its types) on a connection whose close is seen here.
  const listener = postgres(url, {
    ...unreservedOptions,
    // A session of its own (never the transaction pooler), so the round trip before each read is a prepared
    // statement: parsed and planned once, not per read.
    prepare: true,
    max: 1,
    idle_timeout: 0,
    max_lifetime: null,
    connection: { application_name: 'api listener' },
    onnotify: (_channel: string, payload: string) => hear(payload),
    onclose: () => {
      listeningSince = undefined;
      listenAgain();
    },
  } as postgres.Options<Record<string, never>>);

  let again: ReturnType<typeof setTimeout> | undefined;
  function listenAgain(): void {
    again ??= setTimeout(() => {
      again = undefined;
      listen();
    }, reconnectMs);
  }

  function listen(): void {
    // service_role to read private.write_marks (whoever the URL logs in as: authenticator, or postgres on a host).
    listener.unsafe(`set role service_role; listen ${channel}`).simple().then(() => {
      // Whatever was heard before the connection broke is incomplete: start afresh.
      ended.clear();
      blocked.clear();
      listeningSince = Date.now();
    }, listenAgain);
  }

  function hear(payload: string): void {
    const [kind, userId] = payload.split(' ');
    const now = Date.now();
    if (kind === 'ended') ended.set(userId, now);
    else if (kind === 'blocked') blocked.set(userId, now);
    if (now - prunedAt > keepMs) prune(now);
  }

  function prune(now: number): void {
    prunedAt = now;
    for (const heard of [ended, blocked]) for (const [userId, at] of heard) if (now - at > keepMs) heard.delete(userId);
  }

  const recent = (at: number | undefined) => at !== undefined && Date.now() - at <= keepMs;

  let roundTrip: Promise<Counts> | undefined;
  /** The callers waiting for the round trip after the one under way, and its answer. */
  let next: { callers: Set<string>; counts: Promise<Counts> } | undefined;
  /** The write counts read by a round trip on the listening connection that began after the call (in time). */
  function countsSoFar(userId: string): Promise<Counts> {
    if (!roundTrip) return startRoundTrip([userId]);
    // The one under way may have begun before the caller's request arrived: the next begins after it.
    if (!next) {
      const callers = new Set<string>();
      next = {
        callers,
        counts: roundTrip.then(() => {
          next = undefined;
          return startRoundTrip([...callers]);
        }),
      };
    }
    next.callers.add(userId);
    return next.counts;
  }

  function startRoundTrip(callers: string[]): Promise<Counts> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<Counts>((resolve) => timer = setTimeout(() => resolve(undefined), roundTripBoundMs));
    const ids = arrayLiteral(callers);
    const answered =
      listener`select user_id::text as id, writes from private.write_marks where user_id = any(${ids}::uuid[])`
        .then(
          (rows) => new Map(rows.map((row) => [row.id as string, Number(row.writes)])),
          () => undefined,
        );
    const trip = Promise.race([answered, late]).finally(() => {
      clearTimeout(timer);
      if (roundTrip === trip) roundTrip = undefined;
    });
    roundTrip = trip;
    return trip;
  }

  const listening = () => listeningSince !== undefined && Date.now() - listeningSince > keepMs;

  listen();
  return {
    async writesToSee(userId) {
      if (!listening()) return undefined;
      const counts = await countsSoFar(userId);
      if (!counts || !listening()) return undefined;
      if (recent(ended.get(userId))) return undefined;
      if (recent(blocked.get(userId))) return 'primary';
      return counts.get(userId) ?? 0;
    },
  };
}
