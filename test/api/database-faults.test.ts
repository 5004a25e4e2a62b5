// The facade when the database fails under it: connections that drop mid-request, a pool that is busy, a
// statement that runs past its role's timeout, a client that leaves while its statement runs. Faults are made
// for real: sessions ended with pg_terminate_backend, a lock held by another transaction.
import { afterEach, describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.ts';
import { appWith, getFrom, primaryOnlyApp } from '../helpers/app.ts';
import { asRoot, lockWaits, rpc } from '../helpers/db.ts';
import { lockPosts, terminateFacadeBackends } from '../helpers/faults.ts';
import { authIsRunning } from '../helpers/stack.ts';

// The faults are made on the primary: the facade here reads from it alone.
const facade = primaryOnlyApp();
const get = (path: string, token?: string) => getFrom(facade, path, token);

let lock: { release: () => Promise<void> } | undefined;
afterEach(async () => {
  await lock?.release();
  lock = undefined;
});

async function newPost(): Promise<string> {
  const author = await createAccount('author');
  return (await rpc(author, 'create_post', { p_body: 'a day' })).id;
}

async function timed<T>(work: Promise<T>): Promise<[T, number]> {
  const started = Date.now();
  const result = await work;
  return [result, Date.now() - started];
}

describe.skipIf(!authIsRunning)('a database that drops connections mid-request', () => {
  it('answers 503 database_unavailable with Retry-After, and the facade goes on serving', async () => {
    const postId = await newPost();
    for (let round = 0; round < 3; round++) {
      lock = await lockPosts();
      // Transactions of the facade stand waiting on the lock, mid-request, when their sessions are ended.
      const requests = Array.from({ length: 3 }, () => get(`/post/${postId}`));
      await lockWaits(3);
      expect(await terminateFacadeBackends()).toBe(3);
      const answers = await Promise.all(requests);
      expect(answers.map((answer) => [answer.status, answer.body.error.code, answer.headers.get('retry-after')]))
        .toEqual(Array(3).fill([503, 'database_unavailable', '1']));
      await lock.release();
      lock = undefined;
    }
    expect((await get('/health')).status).toBe(200);
    expect((await get(`/post/${postId}`)).status).toBe(200);
  }, 60_000);
});

describe.skipIf(!authIsRunning)("each caller's statement timeout, as PostgREST applies it", () => {
  it(
    'cuts a statement off with 504 statement_timeout after 3 s for anon and 8 s for a user, then serves again',
    async () => {
      const postId = await newPost();
      const reader = await createAccount('reader');
      lock = await lockPosts();
      const [anonymous, anonymousMs] = await timed(get(`/post/${postId}`));
      expect([anonymous.status, anonymous.body.error.code]).toEqual([504, 'statement_timeout']);
      expect([anonymousMs >= 2_900, anonymousMs < 6_000]).toEqual([true, true]);
      const [signedIn, signedInMs] = await timed(get(`/post/${postId}`, reader.accessToken));
      expect([signedIn.status, signedIn.body.error.code]).toEqual([504, 'statement_timeout']);
      expect([signedInMs >= 7_900, signedInMs < 11_000]).toEqual([true, true]);
      await lock.release();
      lock = undefined;
      expect((await get(`/post/${postId}`)).status).toBe(200);
    },
    30_000,
  );
});

describe.skipIf(!authIsRunning)('a busy pool', () => {
  it('answers a request that cannot get a connection within 2 s 503 database_busy, and /health stays up', async () => {
    const postId = await newPost();
    const reader = await createAccount('reader');
    lock = await lockPosts();
    // More slow requests than the pool has connections (at most 20): signed in, each waits up to 8 s.
    const slow = Array.from({ length: 20 }, () => get(`/post/${postId}`, reader.accessToken));
    await lockWaits(1);
    const [profile, waitedMs] = await timed(get(`/${reader.username}`));
    expect([profile.status, profile.body.error.code, profile.headers.get('retry-after')]).toEqual([
      503,
      'database_busy',
      '1',
    ]);
    expect(waitedMs).toBeLessThan(3_000);
    const health = await get('/health');
    expect([health.status, health.body.database]).toEqual([200, 'up']);
    await lock.release();
    lock = undefined;
    const answers = await Promise.all(slow);
    expect(answers.every((answer) => [200, 503].includes(answer.status))).toBe(true);
    expect((await get(`/${reader.username}`)).status).toBe(200);
  }, 30_000);
});

describe.skipIf(!authIsRunning)('a client that goes away', () => {
  it('has its statement cancelled in the database', async () => {
    const postId = await newPost();
    const app = appWith({ SUPABASE_JWKS: '{"keys":[]}' });
    lock = await lockPosts();
    const client = new AbortController();
    const request = Promise.resolve(app.request(`/api/post/${postId}`, { signal: client.signal })).catch(() =>
      undefined
    );
    await lockWaits(1);
    client.abort();
    await request;
    // Well before anon's 3 s statement timeout, nothing of the facade waits on the lock any more.
    const deadline = Date.now() + 1_500;
    let waiting = 1;
    while (waiting > 0 && Date.now() < deadline) {
      [{ waiting }] = await asRoot`
        select count(*)::int as waiting from pg_stat_activity where application_name = 'api' and wait_event_type = 'Lock'`;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(waiting).toBe(0);
  });
});
