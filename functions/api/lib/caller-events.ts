// What the primary tells every facade instance, so that a replica read asks the primary nothing of its own: the
// sessions that just ended (sign-out, ban, password reset, deletion), the accounts just blocked (what they may see
// shrank) and the writes just counted, pushed by
// triggers and private.note_write with pg_notify on the channel `replica_reads`
// (supabase/schemas/23_replica_reads.sql), and heard here on a connection of its own, straight to the primary
// (LISTEN needs a session: not the transaction pooler).
//
// Why this holds the rules of docs/PRODUCT.md, "Reads and replicas": a replica within the staleness bound has
// replayed every commit older than the bound, and checks the caller's session and write count itself
// (private.replica_ready). What it may lack is only what committed within the bound: those ends and writes are
// kept here for the bound (plus a margin for the lag's measurement), and a caller with an end or a block among
// them is read on the primary, one with writes among them on a replica that has replayed as many. A commit signals the
// listening backend before its own client hears back, but that backend sends the notice when it next runs, which
// on a busy primary can be after the next request reached this instance. So each signed-in replica read first
// waits for a round trip on the listening connection that began after the read arrived (`select 1`, one shared by
// the reads that arrive meanwhile): the backend sends every notice it was signalled before it answers. While
// the connection is down, and until it has been up for a whole bound, nothing is known: reads then ask the
// primary as before (`writesToSee` answers undefined). A connection that dies without closing (a network cut)
// loses notices unseen: the replica's own check then holds them once replayed, within the bound.
import postgres from 'postgres';
import { connectionOptions } from './pool.ts';

const channel = 'replica_reads';
/** Beyond the staleness bound: the lag is measured every quarter second, so a replica may be that much further. */
const marginMs = 1_000;
const reconnectMs = 1_000;
/** A round trip on the listening connection slower than this sends the read to the primary. */
const roundTripBoundMs = 1_000;

export interface CallerEvents {
  /**
   * How many writes a replica must have replayed before it serves `userId`'s read (0: none of late); 'primary'
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
  const writes = new Map<string, { count: number; at: number }>();
  let prunedAt = 0;

  // Not postgres.js's listen(), which reconnects on its own without saying when the connection was down:
  // its onnotify hook (missing from its types) on a connection whose close is seen here.
  const listener = postgres(url, {
    ...connectionOptions,
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
    listener.unsafe(`listen ${channel}`).then(() => {
      // Whatever was heard before the connection broke is incomplete: start afresh.
      ended.clear();
      blocked.clear();
      writes.clear();
      listeningSince = Date.now();
    }, listenAgain);
  }

  function hear(payload: string): void {
    const [kind, userId, written] = payload.split(' ');
    const now = Date.now();
    const count = Number(written);
    if (kind === 'ended') ended.set(userId, now);
    else if (kind === 'blocked') blocked.set(userId, now);
    else if (kind === 'wrote' && Number.isSafeInteger(count)) {
      writes.set(userId, { count: Math.max(count, writes.get(userId)?.count ?? 0), at: now });
    }
    if (now - prunedAt > keepMs) prune(now);
  }

  function prune(now: number): void {
    prunedAt = now;
    for (const heard of [ended, blocked]) for (const [userId, at] of heard) if (now - at > keepMs) heard.delete(userId);
    for (const [userId, { at }] of writes) if (now - at > keepMs) writes.delete(userId);
  }

  const recent = (at: number | undefined) => at !== undefined && Date.now() - at <= keepMs;

  let roundTrip: Promise<boolean> | undefined;
  let nextRoundTrip: Promise<boolean> | undefined;
  /** True once a round trip on the listening connection that began after the call is answered (in time). */
  function heardSoFar(): Promise<boolean> {
    if (roundTrip) {
      // The one under way may have begun before the caller's request arrived: the next begins after it.
      nextRoundTrip ??= roundTrip.then(() => {
        nextRoundTrip = undefined;
        return heardSoFar();
      });
      return nextRoundTrip;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), roundTripBoundMs));
    const answered = listener`select 1`.then(() => true, () => false);
    roundTrip = Promise.race([answered, late]).finally(() => {
      clearTimeout(timer);
      roundTrip = undefined;
    });
    return roundTrip;
  }

  const listening = () => listeningSince !== undefined && Date.now() - listeningSince > keepMs;

  listen();
  return {
    async writesToSee(userId) {
      if (!listening() || !(await heardSoFar()) || !listening()) return undefined;
      if (recent(ended.get(userId))) return undefined;
      if (recent(blocked.get(userId))) return 'primary';
      const wrote = writes.get(userId);
      return wrote && recent(wrote.at) ? wrote.count : 0;
    },
  };
}
