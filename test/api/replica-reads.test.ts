// Reads on the streaming replica, with its replay paused to make it lag: the writer still reads their own
// writes (made through the facade or supabase-js), others see them once the replica replays them, and a sign-out
// or a ban is refused at once.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { appWith, facadeDatabaseUrl, getFrom } from '../helpers/app.ts';
import { asRoot } from '../helpers/db.ts';
import postgres from 'postgres';
import { api } from '../helpers/http.ts';
import { registerAndConfirm, type Registered } from '../helpers/registration.ts';
import { replica, replicaCaughtUp, replicaReplayedAllWritten } from '../helpers/replica.ts';
import { signedInSdk } from '../helpers/sdk.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The facade's default bound (DB_REPLICA_MAX_LAG_MS), which the stack does not change. */
const maxLagMs = 2_000;

/** A bound for in-process instances that a slow machine cannot outlast within one test. */
const slowMachineBound = { DB_REPLICA_MAX_LAG_MS: '60000' };

/** How long a facade keeps its measure of the replicas' lag (functions/api/lib/replica-lag.ts), and a margin. */
const lagMeasureMs = 250 + 50;

/**
 * Pauses replay so that the facade (and `others`, when given) counts the replica's lag from about now: each
 * reads twice a measure apart, and the replica replays past where the primary was after each read. The first
 * read notes where the primary is; the second measures the replica past that note (a measure kept from earlier
 * may have found the replica behind) and notes where the primary is again, a position the paused replica holds
 * (functions/api/lib/replica-lag.ts).
 */
async function pauseReplay(others?: ReturnType<typeof appWith>): Promise<void> {
  for (const last of [false, true]) {
    await read('/post/00000000-0000-0000-0000-000000000000');
    if (others) await getFrom(others, '/post/00000000-0000-0000-0000-000000000000');
    await replicaReplayedAllWritten();
    if (!last) await sleep(lagMeasureMs);
  }
  await replica!`select pg_wal_replay_pause()`;
}

async function resumeReplay(): Promise<void> {
  await replica!`select pg_wal_replay_resume()`;
}

/** A read of the replica as it is, without waiting for it to replay what the primary acknowledged. */
function read(path: string, token?: string) {
  return api('GET', path, { token, replicaAsItIs: true });
}

/** The writer's count of writes on the primary (supabase/schemas/23_replica_reads.sql). */
async function writesOf(writer: Registered): Promise<number> {
  const [row] =
    await asRoot`select coalesce((select writes from private.write_marks where user_id = ${writer.userId}), 0)::int as n`;
  return row.n;
}

async function createPost(author: Registered, body: string): Promise<string> {
  const created = await api('POST', '/post/create', { token: author.session.access_token, json: { body } });
  expect(created.status).toBe(201);
  return created.body.id;
}

describe.skipIf(!authIsRunning || !replica)('reads on a lagging replica', () => {
  let writer: Registered;
  let reader: Registered;
  /**
   * Where others read a write the replica has not replayed: an instance wired as the stack's but with a long
   * bound (on a busy machine the stack's 2 s can pass between the pause and the read, which then goes to the
   * primary).
   */
  let others: ReturnType<typeof appWith>;

  beforeAll(async () => {
    others = replicatedApp(slowMachineBound);
    writer = await registerAndConfirm('writer');
    reader = await registerAndConfirm('reader');
  });

  afterEach(resumeReplay);

  it('the primary streams to the replica, and the facade reaches the primary through PgBouncer', async () => {
    const [streaming] = await asRoot`select state from pg_stat_replication where application_name = 'walreceiver'`;
    expect(streaming?.state).toBe('streaming');
    expect((await replica!`select pg_is_in_recovery() as standby`)[0].standby).toBe(true);
    expect(stack.poolerUrl).not.toBe('');
    await api('GET', `/${writer.username}`);
    const admin = new URL(stack.poolerUrl);
    admin.pathname = '/pgbouncer';
    const { default: postgres } = await import('postgres');
    const console = postgres(admin.toString(), { max: 1, prepare: false, fetch_types: false });
    try {
      const pools = await console.unsafe('show pools');
      expect(pools.some((pool) => pool.user === 'authenticator' && pool.pool_mode === 'transaction')).toBe(true);
    } finally {
      await console.end();
    }
  });

  it('the writer reads their new post and finds it in their list; others see it once replay resumes', async () => {
    await pauseReplay(others);
    const postId = await createPost(writer, 'written while the replica waits');
    const token = writer.session.access_token;
    expect((await read(`/post/${postId}`, token)).status).toBe(200);
    expect((await read(`/${writer.username}/posts`, token)).body.items.map((post: { id: string }) => post.id))
      .toContain(postId);
    // The replica served the others: it has not replayed the post.
    expect((await getFrom(others, `/post/${postId}`, reader.session.access_token)).status).toBe(404);
    expect((await getFrom(others, `/post/${postId}`)).status).toBe(404);
    await resumeReplay();
    await replicaCaughtUp();
    expect((await getFrom(others, `/post/${postId}`, reader.session.access_token)).status).toBe(200);
    expect((await getFrom(others, `/post/${postId}`)).status).toBe(200);
  });

  it('a post the writer inserts with supabase-js is in their next facade read; others see it once replay resumes', async () => {
    // Signed in before replay pauses, so the replica holds the session and could serve this caller's reads.
    const sdk = await signedInSdk(writer, writer.password);
    const token = (await sdk.auth.getSession()).data.session!.access_token;
    await pauseReplay(others);
    const before = await writesOf(writer);
    const { data: post, error } = await sdk.from('posts').insert({
      body: 'written through PostgREST while the replica waits',
    }).select('id').single();
    expect(error).toBeNull();
    expect(await writesOf(writer)).toBe(before + 1);
    expect((await read(`/post/${post!.id}`, token)).status).toBe(200);
    expect((await read(`/${writer.username}/posts`, token)).body.items.map((item: { id: string }) => item.id))
      .toContain(post!.id);
    // Reads through PostgREST (a select, a stable function) count nothing.
    expect((await sdk.from('posts').select('id').eq('id', post!.id)).data).toHaveLength(1);
    expect((await sdk.rpc('feed', { p_limit: 5 })).error).toBeNull();
    expect(await writesOf(writer)).toBe(before + 1);
    // The replica served the others: it has not replayed the post.
    expect((await getFrom(others, `/post/${post!.id}`, reader.session.access_token)).status).toBe(404);
    await resumeReplay();
    await replicaCaughtUp();
    expect((await getFrom(others, `/post/${post!.id}`, reader.session.access_token)).status).toBe(200);
  });

  it('a replica further behind than the bound is not used', async () => {
    await pauseReplay();
    const postId = await createPost(writer, 'read from the primary once the replica is too far behind');
    expect((await read(`/post/${postId}`)).status).toBe(404);
    await sleep(maxLagMs + 500);
    expect((await read(`/post/${postId}`)).status).toBe(200);
  });

  it('a sign-out is refused at once, and a new session reads at once', async () => {
    const member = await registerAndConfirm('leaver');
    await pauseReplay();
    const token = member.session.access_token;
    expect((await read(`/${member.username}/posts`, token)).status).toBe(200);
    expect((await api('POST', '/auth/logout', { token })).status).toBe(200);
    expect((await read(`/${member.username}/posts`, token)).status).toBe(401);
    const login = await api('POST', '/auth/login', { json: { login: member.username, password: member.password } });
    expect(login.status).toBe(200);
    expect((await read('/auth/user', login.body.session.access_token)).status).toBe(200);
  });

  it('a ban is refused at once', async () => {
    const member = await registerAndConfirm('banned');
    await pauseReplay();
    const token = member.session.access_token;
    expect((await read(`/${reader.username}`, token)).status).toBe(200);
    await asRoot`select moderation.ban_user(${member.username}, 'banned while the replica waits')`;
    expect((await read(`/${reader.username}`, token)).status).toBe(401);
  });

  it('a block hides the blocker from the blocked account at once, on every read', async () => {
    const blocker = await registerAndConfirm('blocker');
    const blocked = await registerAndConfirm('blocked');
    const postId = await createPost(blocker, 'seen until the block');
    await replicaCaughtUp();
    await pauseReplay();
    const token = blocked.session.access_token;
    expect((await read(`/post/${postId}`, token)).status).toBe(200);
    const block = await api('POST', `/${blocked.username}/block`, { token: blocker.session.access_token, json: {} });
    expect(block.status).toBe(200);
    expect((await read(`/post/${postId}`, token)).status).toBe(404);
    expect((await read(`/${blocker.username}`, token)).status).toBe(404);
  });

  it('a ban is refused at once when the primary sends its notice late', async () => {
    const member = await registerAndConfirm('banned_late');
    await pauseReplay();
    const token = member.session.access_token;
    expect((await read(`/${reader.username}`, token)).status).toBe(200);
    // The backends that send the facade its notices (functions/api/lib/caller-events.ts) stopped, as a busy
    // primary may leave them unscheduled: the ban commits, and its notice waits until they run again.
    const listeners = (await asRoot`select pid from pg_stat_activity where application_name = 'api listener'`)
      .map((row) => row.pid as number);
    expect(listeners.length).toBeGreaterThan(0);
    for (const pid of listeners) process.kill(pid, 'SIGSTOP');
    const resumed = sleep(300).then(() => listeners.forEach((pid) => process.kill(pid, 'SIGCONT')));
    try {
      await asRoot`select moderation.ban_user(${member.username}, 'banned while its notice waits')`;
      expect((await read(`/${reader.username}`, token)).status).toBe(401);
    } finally {
      await resumed;
    }
  });
});

describe.skipIf(!authIsRunning || !replica)('a facade without replicas, or with one that is down', () => {
  let writer: Registered;

  beforeAll(async () => {
    writer = await registerAndConfirm('solo');
  });

  afterEach(resumeReplay);

  it("without DB_REPLICA_URLS every read is the primary's", async () => {
    await pauseReplay();
    const postId = await createPost(writer, 'seen by everyone at once');
    const response = await appWith({}).request(`/api/post/${postId}`);
    expect(response.status).toBe(200);
  });

  it("a replica that refuses connections is skipped: the read is the primary's, no 5xx", async () => {
    const app = appWith({ DB_REPLICA_URLS: 'postgresql://authenticator:postgres@127.0.0.1:9/postgres' });
    const postId = await createPost(writer, 'read while the replica is down');
    for (let i = 0; i < 3; i++) expect((await app.request(`/api/post/${postId}`)).status).toBe(200);
  });
});

/** An in-process facade wired as the stack's: the pooler for requests, the primary itself to listen, the replica. */
function replicatedApp(overrides: Record<string, string> = {}) {
  const replicaUrl = new URL(stack.replicaUrl);
  replicaUrl.username = 'authenticator';
  return appWith({ DB_POOLER_URL: facadeDatabaseUrl(), DB_REPLICA_URLS: replicaUrl.toString(), ...overrides });
}

/** Once an instance has listened for a whole staleness bound (and its margin), it trusts what it heard. */
const settleMs = maxLagMs + 1_000 + 300;

/**
 * Runs `work` while the primary refuses the caller's look-up a replica read makes there when it cannot know
 * better (private.read_mark as the caller); the replica's own check runs as the function's owner, unrefused.
 */
async function withoutPrimaryLookUp(work: () => Promise<void>): Promise<void> {
  await asRoot`revoke execute on function private.read_mark() from authenticated`;
  try {
    await work();
  } finally {
    await asRoot`grant execute on function private.read_mark() to authenticated`;
  }
}

describe.skipIf(!authIsRunning || !replica)(
  'what the primary tells each instance (supabase/schemas/23_replica_reads.sql)',
  () => {
    afterEach(resumeReplay);

    it('announces each ended session on replica_reads, once committed, and no write (a write is only counted)', async () => {
      const member = await registerAndConfirm('announced');
      const heard: string[] = [];
      const listener = postgres(stack.dbUrl, { max: 1, onnotice: () => {} });
      try {
        await listener.listen('replica_reads', (payload) => heard.push(payload));
        const writes = await writesOf(member);
        await createPost(member, 'counted and announced');
        await asRoot.begin(async (tx) => {
          await tx`update auth.users set banned_until = now() + interval '1 hour' where id = ${member.userId}`;
          throw new Error('rolled back: nothing is announced');
        }).catch(() => {});
        await asRoot`delete from auth.sessions where user_id = ${member.userId}`;
        await sleep(200);
        // Others' notices (another test's writes, Auth's clean-up of old sessions) are not this test's.
        expect(heard.filter((payload) => payload.includes(member.userId))).toEqual([`ended ${member.userId}`]);
        expect(await writesOf(member)).toBe(writes + 1);
      } finally {
        await listener.end();
      }
    });

    it('a settled instance reads a signed-in caller on the replica without asking the primary; a new one asks', async () => {
      const member = await registerAndConfirm('settled');
      const token = member.session.access_token;
      const settled = replicatedApp();
      await getFrom(settled, `/${member.username}`, token);
      await sleep(settleMs);
      // A new instance whose lag meter has noted where the primary was (else it may skip the replica for the
      // primary, where a read needs no look-up), well within its first bound (long, for a slow machine).
      const fresh = replicatedApp(slowMachineBound);
      await getFrom(fresh, `/${member.username}`, token);
      await replicaCaughtUp();
      await sleep(300); // past the meter's quarter second: its next read measures the caught-up replica afresh
      await withoutPrimaryLookUp(async () => {
        expect((await getFrom(settled, `/${member.username}/posts`, token)).status).toBe(200);
        expect((await getFrom(fresh, `/${member.username}/posts`, token)).status).not.toBe(200);
      });
    });

    it('a settled instance hears a write and a sign-out: the writer reads their post, the ended session is refused', async () => {
      const member = await registerAndConfirm('heard');
      const token = member.session.access_token;
      const settled = replicatedApp();
      await getFrom(settled, `/${member.username}`, token);
      await sleep(settleMs);
      await pauseReplay();
      await withoutPrimaryLookUp(async () => {
        // Written through another instance (the stack's function): this one learns it from the primary.
        const postId = await createPost(member, 'written through another instance');
        expect((await getFrom(settled, `/post/${postId}`, token)).status).toBe(200);
        expect((await api('POST', '/auth/logout', { token })).status).toBe(200);
        expect((await getFrom(settled, `/${member.username}/posts`, token)).status).toBe(401);
      });
    });
  },
);
