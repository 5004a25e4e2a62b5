// The test stack's read replica. The facade sends reads to it, so a read sees another caller's write (or data a
// test arranged as root) once the replica has replayed it: what every client of a replicated project sees
// (docs/PRODUCT.md, "Reads and replicas"). The request helpers wait for that before each read, so a test that
// reads what someone else wrote says what it means; the replica's own tests read without waiting.
import postgres from 'postgres';
import { asRoot } from './db.ts';
import { stack } from './stack.ts';

export const replica = stack.replicaUrl ? postgres(stack.replicaUrl, { max: 2, onnotice: () => {} }) : undefined;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the replica has replayed every commit the primary has acknowledged so far. */
export async function replicaCaughtUp(timeoutMs = 15_000): Promise<void> {
  if (!replica) return;
  const [{ lsn }] = await asRoot`select pg_current_wal_flush_lsn()::text as lsn`;
  await replicaReplayed(lsn, timeoutMs);
}

/**
 * Waits until the replica has replayed all the WAL the primary has written so far, committed or not: past any
 * position a reader of `pg_current_wal_lsn()` (the facade's lag meter) may have seen.
 */
export async function replicaReplayedAllWritten(timeoutMs = 15_000): Promise<void> {
  if (!replica) return;
  const [{ lsn }] = await asRoot`select pg_current_wal_lsn()::text as lsn`;
  await replicaReplayed(lsn, timeoutMs);
}

async function replicaReplayed(lsn: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [{ replayed }] = await replica!`select pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn as replayed`;
    if (replayed) return;
    if (Date.now() > deadline) {
      throw new Error(`the replica has not replayed ${lsn} within ${timeoutMs} ms: is its replay paused?`);
    }
    await sleep(5);
  }
}
