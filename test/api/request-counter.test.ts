// The facade's per-instance request counter (functions/api/lib/request-counter.ts) on its own, with a write that
// records what it is sent: what it admits itself, when it sends a request to the database, and what becomes of
// counts whose write failed. Through the facade and the database: test/api/request-limits.test.ts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  batchSize,
  createRequestCounter,
  flushIntervalMs,
  holdMs,
  type KeyState,
  margin,
  type UnwrittenCount,
} from '../../functions/api/lib/request-counter.ts';

const windowStart = '2026-11-27T18:00:00+00:00';
const state = (remaining: number, reset = 300): KeyState => ({
  key: 'account:a',
  window_start: windowStart,
  reset,
  ends_in_ms: reset * 1000,
  window_seconds: 300,
  limit: 100,
  remaining,
});

/** A counter whose writes are recorded, and fail (unrecorded) while `failing` is set. */
function recordingCounter() {
  const writes: UnwrittenCount[][] = [];
  const control = { failing: false };
  const counter = createRequestCounter((counts) => {
    if (control.failing) return Promise.reject(new Error('down'));
    writes.push(counts);
    return Promise.resolve([]);
  });
  return { counter, writes, control };
}

describe('the request counter', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('admits a key it knows far from its limit, and writes what it admitted in one statement', async () => {
    const { counter, writes } = recordingCounter();
    expect(counter.admit(['account:a']).local).toBe(false);
    counter.learn('account:a', state(50));
    const first = counter.admit(['account:a']);
    expect(first).toEqual({ local: true, left: { limit: 100, remaining: 49, reset: 300 } });
    counter.admit(['account:a']);
    await counter.flush();
    expect(writes).toEqual([[{ key: 'account:a', window_start: windowStart, requests: 2 }]]);
  });

  it('near the limit sends the request to the database once its counts are written', async () => {
    const { counter, writes } = recordingCounter();
    expect(margin(100)).toBe(10);
    counter.learn('account:a', state(12));
    expect(counter.admit(['account:a']).local).toBe(true);
    expect(counter.admit(['account:a']).local).toBe(true);
    const near = counter.admit(['account:a']);
    expect(near.local).toBe(false);
    if (!near.local) await near.written;
    expect(writes).toEqual([[{ key: 'account:a', window_start: windowStart, requests: 2 }]]);
  });

  it('keeps the counts of a failed write for the next, and drops them once their window has ended', async () => {
    vi.useFakeTimers();
    const { counter, writes, control } = recordingCounter();
    counter.learn('account:a', state(50, 3));
    counter.admit(['account:a']);
    control.failing = true;
    await counter.flush();
    control.failing = false;
    counter.admit(['account:a']);
    await counter.flush();
    expect(writes).toEqual([[{ key: 'account:a', window_start: windowStart, requests: 2 }]]);
    counter.admit(['account:a']);
    control.failing = true;
    await counter.flush();
    vi.advanceTimersByTime(3_000);
    control.failing = false;
    await counter.flush();
    expect(writes).toHaveLength(1);
  });

  it('starts the next window itself when a window ends, and keeps no late answer about the one that ended', async () => {
    vi.useFakeTimers();
    const { counter, writes } = recordingCounter();
    counter.learn('account:a', state(12, 2));
    counter.admit(['account:a']);
    vi.advanceTimersByTime(2_000);
    // The window ended: the request counts in the next, from nothing, and the one unwritten count of the window
    // that ended is dropped.
    expect(counter.admit(['account:a'])).toEqual({ local: true, left: { limit: 100, remaining: 99, reset: 300 } });
    counter.learn('account:a', state(0, 1));
    await counter.flush();
    const nextWindow = '2026-11-27T18:05:00.000Z';
    expect(writes).toEqual([[{ key: 'account:a', window_start: nextWindow, requests: 1 }]]);
    // That one ended too, and the one after: the key is forgotten, its next request goes to the database.
    vi.advanceTimersByTime(600_000);
    expect(counter.admit(['account:a']).local).toBe(false);
  });

  it('sends the new keys that arrive during a write to the database after one more write, however many they are', async () => {
    // Writes that answer only when let go, one at a time, as a busy primary does.
    const sent: { counts: UnwrittenCount[]; answer: () => void }[] = [];
    const counter = createRequestCounter((counts) =>
      new Promise((resolve) => sent.push({ counts, answer: () => resolve([]) }))
    );
    // A busy address every caller shares (the benchmark's 64 callers, an office behind one NAT), far from its limit.
    const address = 'address:192.0.2.1';
    counter.learn(address, { ...state(1_000_000), key: address, limit: 2_000_000 });
    counter.admit([address]);
    const first = counter.admit(['account:new0', address]);
    expect(first.local).toBe(false);
    expect(sent).toHaveLength(1);
    // Five more callers the process has not met come while that write is in flight, between requests it admits.
    const waiting = [1, 2, 3, 4, 5].map((i) => {
      counter.admit([address]);
      const admission = counter.admit([`account:new${i}`, address]);
      if (admission.local) throw new Error('a key the process has not met is admitted here');
      let done = false;
      void admission.written.then(() => (done = true));
      return () => done;
    });
    sent[0].answer();
    await vi.waitFor(() => expect(sent).toHaveLength(2));
    // The one write after it holds every count admitted before they came: each may take its quota now.
    expect(sent[1].counts).toEqual([{ key: address, window_start: windowStart, requests: 5 }]);
    counter.admit([address]);
    sent[1].answer();
    await vi.waitFor(() => expect(waiting.every((done) => done())).toBe(true));
    expect(sent).toHaveLength(2);
  });

  it("writes a busy key's counts at the next interval, a quiet key's once the oldest has waited holdMs", async () => {
    vi.useFakeTimers();
    const { counter, writes } = recordingCounter();
    counter.learn('account:a', state(50));
    counter.learn('account:b', { ...state(50), key: 'account:b' });
    for (let i = 0; i < batchSize; i++) counter.admit(['account:a']);
    counter.admit(['account:b']);
    await vi.advanceTimersByTimeAsync(flushIntervalMs);
    expect(writes).toEqual([[{ key: 'account:a', window_start: windowStart, requests: batchSize }]]);
    counter.admit(['account:b']);
    await vi.advanceTimersByTimeAsync(holdMs - 2 * flushIntervalMs);
    expect(writes).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(2 * flushIntervalMs);
    expect(writes).toEqual([
      [{ key: 'account:a', window_start: windowStart, requests: batchSize }],
      [{ key: 'account:b', window_start: windowStart, requests: 2 }],
    ]);
  });
});
