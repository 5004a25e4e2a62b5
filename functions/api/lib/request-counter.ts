// The request limits counted per instance and flushed (supabase/schemas/26_request_limits.sql): this process
// keeps, for each key it has met (account:<id>, address:<ip>), the state of its window the database last
// answered and the requests it admitted itself since, and writes those in one statement at most every
// `flushIntervalMs`: a key's count once it has `batchSize` unwritten requests, or its oldest has waited `holdMs`
// (a reader's request a second is then written eight at a time, a busy key's every quarter second). A request is admitted here, with no statement on the primary, only when
// each of its keys is known in its current window and far from its limit; otherwise it takes its quota in the
// database as before (request-quota.ts), once this process's counts of its keys are written, so that near the
// limit the database decides, exactly, with its own 429.
//
// Bounds: within one instance the count is exact near the limit. Another instance's requests reach the
// database within `holdMs` (a quarter second once it holds `batchSize` of them), and this one learns them at
// its next flush or synchronous take; so a key sending through several instances can pass its limit by what
// they admit in that time beyond the margin (the margin is how near to the limit a key must be for every request
// to go to the database): per other instance, fewer than `batchSize` held plus what it admits in about two
// flush intervals.
//
// Window ends: when a key's window ends, this process starts the key's next one itself (the database answers
// when the window ends, to the millisecond, and how long windows are), with nothing counted yet, and admits the
// key's requests into it as it would have in the window that ended, written when due. Before, every request of a
// window's last second and of the next one's first round trip took its quota in the database: a burst of upserts
// on the busy keys' rows from every instance at once at each window's end (64 callers through one instance: about
// 250 takes at each end, none now). What the key's window had not written yet at its end is dropped, as the
// database would drop it, and so are the requests admitted in the few milliseconds by which this process learns
// the end late (its round trip).
import { type Quota, tighterQuota } from './limits.ts';

/** A key's state as the database answers it (private.request_key_state); no limit nor remaining: exempt. */
export interface KeyState {
  /** The key as the database names it (an address as Postgres writes it). */
  key: string;
  window_start: string;
  /** Seconds until the window ends, rounded up (the RateLimit-Reset header). */
  reset: number;
  /** Milliseconds until the window ends, from the start of the database's transaction: never early here. */
  ends_in_ms: number;
  /** The window's length: the next one starts when it ends. */
  window_seconds: number;
  limit?: number;
  remaining?: number;
  exempt?: boolean;
}

/** Requests admitted here and not yet written, as private.add_request_counts takes them. */
export interface UnwrittenCount {
  key: string;
  window_start: string;
  requests: number;
}

/** Writes counts to the database and answers the state of each key counted. */
export type WriteCounts = (counts: UnwrittenCount[]) => Promise<KeyState[]>;

/** Whether a request was admitted here (and what is left, for its headers), or must take its quota in the database. */
export type Admission =
  | { local: true; left?: Quota }
  | { local: false; written: Promise<void> };

export interface RequestCounter {
  /** Admits a request of these keys here and counts it, or says it must take its quota in the database (after `written`). */
  admit(keys: string[]): Admission;
  /** Keeps a key's state as a synchronous take answered it (null: no limit applies now). */
  learn(key: string, state: KeyState | null): void;
  /** Writes every count admitted here so far (the timer writes those that are due on its own). */
  flush(): Promise<void>;
}

/** How often at most counts are written while there are any. */
export const flushIntervalMs = 250;
/**
 * How long a key's unwritten requests may wait to be written with more (fewer than `batchSize` of them): a reader's
 * request a second is written `batchSize` at a time, two key rows per 8 requests (issue 55: a lone reader's share
 * of the primary). What it delays is bounded by `batchSize` anyway: no more is held of a key, however long.
 */
export const holdMs = 8_000;
/** Unwritten requests of one key that are written at the next interval, however recent. */
export const batchSize = 8;

/**
 * How near to its limit a key must be for every request to go to the database: 5% of the limit, at least 10.
 * It covers what another instance holds unwritten before this one learns it (fewer than `batchSize`, plus what
 * it admits in about two flush intervals: 75 of the account limit's 1,500 per five minutes cover 130 requests a
 * second through two instances), and a small limit keeps a few requests of room.
 */
export function margin(limit: number): number {
  return Math.max(10, Math.ceil(limit * 0.05));
}

interface Entry {
  state: KeyState;
  /** When the window ends on this process's clock (late by the round trip that answered it, never early). */
  endsAt: number;
  /** Admitted here, not yet sent. */
  pending: number;
  /** Sent in a flush not yet answered. */
  sending: number;
  /** When the oldest of `pending` was admitted. */
  heldSince: number;
}

/** The window after `entry`'s, with nothing counted, if it holds `now`; exempt stays exempt. */
function nextWindow(entry: Entry, now: number): Entry | undefined {
  const length = entry.state.window_seconds * 1000;
  const endsAt = entry.endsAt + length;
  if (now >= endsAt) return undefined;
  const { state } = entry;
  const window_start = new Date(Date.parse(state.window_start) + length).toISOString();
  const remaining = state.limit;
  return {
    state: { ...state, window_start, reset: state.window_seconds, ends_in_ms: length, remaining },
    endsAt,
    pending: 0,
    sending: 0,
    heldSince: now,
  };
}

export function createRequestCounter(writeCounts: WriteCounts, intervalMs = flushIntervalMs): RequestCounter {
  const entries = new Map<string, Entry>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let flushing: Promise<void> | undefined;
  /** The write of every count that follows the one in flight: shared by all who ask for it meanwhile. */
  let following: Promise<void> | undefined;
  let pruneAt = 1024;

  /** The entry of `key` in the window that holds `now`: the one known, or the next (started here), or none. */
  const current = (key: string, now: number) => {
    const entry = entries.get(key);
    if (!entry || now < entry.endsAt) return entry;
    const next = nextWindow(entry, now);
    if (next) entries.set(key, next);
    else entries.delete(key);
    return next;
  };

  const keep = (key: string, state: KeyState, now: number) => {
    const entry = entries.get(key);
    const endsAt = now + state.ends_in_ms;
    const window = Date.parse(state.window_start);
    const known = entry ? Date.parse(entry.state.window_start) : undefined;
    // An answer about a window this process has already left (sent before its end, answered after) is of no use.
    if (known !== undefined && window < known) return;
    if (entry && window === known) Object.assign(entry, { state, endsAt: Math.min(entry.endsAt, endsAt) });
    else entries.set(key, { state, endsAt, pending: 0, sending: 0, heldSince: now });
    if (entries.size >= pruneAt) prune(now);
  };

  /**
   * Moves every key whose window ended into the next (its unwritten counts dropped: they limit nothing any more),
   * and forgets those whose next window ended too. A write in flight for a window that ended answers its own entry,
   * no longer this map's.
   */
  const prune = (now: number) => {
    for (const key of entries.keys()) current(key, now);
    pruneAt = Math.max(1024, entries.size * 2);
  };

  const arm = () => {
    if (timer || flushing) return;
    timer = setTimeout(() => void write(false), intervalMs);
    // A pending write does not keep a process (a test run, a deno script) from exiting.
    // (Node's timers are objects with unref; Deno's are numbers, and the test suite's type check knows no Deno.)
    if (typeof timer === 'object' && 'unref' in timer) timer.unref();
    else (globalThis as { Deno?: { unrefTimer(id: number): void } }).Deno?.unrefTimer(timer as number);
  };

  const hasPending = () => [...entries.values()].some((entry) => entry.pending > 0);

  const due = (entry: Entry, now: number) => entry.pending >= batchSize || now - entry.heldSince >= holdMs;

  /** Writes the counts that are due (`all`: every unwritten count). */
  const write = (all: boolean): Promise<void> => {
    clearTimeout(timer);
    timer = undefined;
    // Everyone who asks while a write is in flight waits for the one write after it, not one write each in turn
    // (64 new callers behind one busy address waited up to 2.4 s, a round trip per caller ahead of them).
    if (flushing && all) {
      return following ??= flushing.then(() => {
        following = undefined;
        return write(true);
      });
    }
    if (flushing) return flushing.then(() => write(all));
    const now = Date.now();
    prune(now);
    const sent = [...entries].filter(([, entry]) => entry.pending > 0 && (all || due(entry, now)));
    if (sent.length === 0) {
      if (hasPending()) arm();
      return Promise.resolve();
    }
    const counts = sent.map(([, entry]) => {
      entry.sending = entry.pending;
      entry.pending = 0;
      return { key: entry.state.key, window_start: entry.state.window_start, requests: entry.sending };
    });
    flushing = writeCounts(counts).then(
      (states) => {
        const answeredAt = Date.now();
        for (const [, entry] of sent) entry.sending = 0;
        for (const [key, entry] of sent) {
          const state = states.find((s) => s.key === entry.state.key);
          if (state) keep(key, state, answeredAt);
        }
      },
      () => {
        // Kept for the next try (those of a window that has ended are no longer this map's: dropped).
        for (const [, entry] of sent) {
          entry.pending += entry.sending;
          entry.sending = 0;
        }
      },
    ).finally(() => {
      flushing = undefined;
      if (hasPending()) arm();
    });
    return flushing;
  };

  return {
    admit(keys) {
      const now = Date.now();
      const known = keys.map((key) => current(key, now));
      const far = known.every((entry) => {
        if (!entry) return false;
        const { limit, remaining } = entry.state;
        return limit === undefined || (remaining ?? 0) - entry.pending - entry.sending > margin(limit);
      });
      if (!far) {
        const unwritten = known.some((entry) => entry && entry.pending + entry.sending > 0);
        return { local: false, written: unwritten ? write(true).catch(() => undefined) : Promise.resolve() };
      }
      let left: Quota | undefined;
      for (const entry of known as Entry[]) {
        if (entry.pending++ === 0) entry.heldSince = now;
        const { limit, remaining } = entry.state;
        if (limit === undefined || remaining === undefined) continue;
        const reset = Math.ceil((entry.endsAt - now) / 1000);
        left = tighterQuota(left, { limit, remaining: remaining - entry.pending - entry.sending, reset });
      }
      if (keys.length > 0) arm();
      return { local: true, left };
    },
    learn(key, state) {
      if (state) keep(key, state, Date.now());
      else entries.delete(key);
    },
    flush: () => write(true),
  };
}
