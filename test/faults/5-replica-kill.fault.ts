// The read replica crashes (every process of its server SIGKILLed) under a read load through the facade. Reads
// must go on from the primary with no 5xx while it is down, the supervisor must start it again, and reads must
// return to it once it streams again.
import { describe, expect, it } from 'vitest';
import postgres from 'postgres';
import { createAccount, createLoadWriter } from '../helpers/accounts.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';
import { failuresByCode, formatMs, printFigures, skipLoudly } from './helpers/figures.ts';
import { crashReplica, servicePid } from './helpers/inject.ts';
import { call, ok, sleep, startTraffic, waitUntil } from './helpers/traffic.ts';

const steadyMs = 1_500;
const recoveryBoundMs = 30_000;

/** Transactions the facade's role ran on the replica so far (none while it is down). */
async function replicaReads(): Promise<number | undefined> {
  const replica = postgres(stack.replicaUrl, { max: 1, onnotice: () => {}, connect_timeout: 2 });
  try {
    const [row] = await replica`
      select coalesce(sum(xact_commit + xact_rollback), 0)::bigint as reads from pg_stat_database where datname = 'postgres'`;
    const [{ streaming }] =
      await replica`select exists (select 1 from pg_stat_wal_receiver where status = 'streaming') as streaming`;
    return streaming ? Number(row.reads) : undefined;
  } catch {
    return undefined;
  } finally {
    await replica.end({ timeout: 2 });
  }
}

describe.skipIf(!authIsRunning || !stack.replicaUrl)('the read replica crashes under a read load', () => {
  it('reads go on from the primary with no 5xx, and return to the replica once it is back', async () => {
    const [reader, author] = await Promise.all([createAccount('reader'), createLoadWriter('author')]);
    const post = await call('setup', 'POST', '/post/create', {
      token: author.accessToken,
      json: { body: 'read while the replica is down' },
    });
    expect(post.status).toBe(201);
    await sleep(200); // replayed on the replica

    const traffic = startTraffic(4, (worker, n) => {
      if (worker === 0) return call('read', 'GET', `/post/${post.body.id}`);
      return n % 2 === 0
        ? call('read', 'GET', `/${author.username}/posts`, { token: reader.accessToken })
        : call('read', 'GET', `/post/${post.body.id}`, { token: reader.accessToken });
    });
    await sleep(steadyMs);
    const before = await replicaReads();
    const crashedAt = performance.now();
    const crashedPid = crashReplica();
    const cameBack = await waitUntil(
      async () => servicePid('replica') !== crashedPid && await replicaReads() !== undefined,
      recoveryBoundMs,
    );
    const backAt = performance.now();
    const atReturn = await replicaReads();
    await sleep(steadyMs);
    const afterReturn = await replicaReads();
    const outcomes = await traffic.stop();

    const during = outcomes.filter((o) => o.at > crashedAt && o.at < backAt);
    printFigures('the read replica crashed (SIGKILL to all its processes) under reads', {
      'reads': outcomes.length,
      'reads while it was down': `${during.length}, ${during.filter((o) => !ok(o)).length} failed`,
      'failures by kind, status and code': failuresByCode(outcomes),
      'replica back (crash → streaming again)': cameBack
        ? formatMs(backAt - crashedAt)
        : `NOT BACK within ${recoveryBoundMs / 1000} s`,
      'replica pid': `${crashedPid} → ${servicePid('replica')}`,
      'transactions on the replica before the crash': before,
      'transactions on it in the 1.5 s after its return': afterReturn !== undefined && atReturn !== undefined
        ? afterReturn - atReturn
        : 'unknown',
    });

    expect(before, 'the replica served reads before the crash').toBeGreaterThan(0);
    expect(cameBack, 'the supervisor started the replica again').toBe(true);
    expect(during.length, 'reads were answered while the replica was down').toBeGreaterThan(0);
    expect(failuresByCode(outcomes), 'reads that failed').toEqual({});
    expect((afterReturn ?? 0) - (atReturn ?? 0), 'reads returned to the replica').toBeGreaterThan(50);
  });
});

describe.runIf(!authIsRunning || !stack.replicaUrl)('the read replica crashes under a read load', () => {
  it('is skipped: Auth or the replica is not running', () => {
    skipLoudly('replica crash', stack.replicaUrl ? 'Supabase Auth is not running' : 'the stack runs no replica');
    expect(authIsRunning && stack.replicaUrl).toBeFalsy();
  });
});
