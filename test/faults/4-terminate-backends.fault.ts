// The facade's database sessions ended mid-transaction (pg_terminate_backend, again and again) while clients
// like posts, follow each other and comment. Afterwards every acknowledged like, follow and comment must be in
// the database, the stored counters must equal a recount (private.recount_counters() corrects nothing), no
// answer may be a 500, and the facade must have recovered without its process being restarted.
import { describe, expect, it } from 'vitest';
import { type Account, createLoadWriter } from '../helpers/accounts.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';
import { failuresByCode, formatMs, internalErrors, outageMs, printFigures, skipLoudly } from './helpers/figures.ts';
import { servicePid, terminateFunctionBackends, withDatabase } from './helpers/inject.ts';
import { call, ok, type Outcome, sleep, startTraffic, waitUntil } from './helpers/traffic.ts';

const actors = 6;
const workers = 6;
const steadyMs = 1_000;
/** How long sessions are terminated, and how often. */
const faultMs = 8_000;
const everyMs = 150;
const recoveryBoundMs = 30_000;

/** One write of `kind` by a random actor towards another actor (or that one's post). */
function write(kind: string, people: Account[], posts: string[]): Promise<Outcome> {
  const by = Math.floor(Math.random() * people.length);
  const to = (by + 1 + Math.floor(Math.random() * (people.length - 1))) % people.length;
  const token = people[by].accessToken;
  const target = { by: people[by].id, to: people[to].id, post: posts[to] };
  const withTarget = (outcome: Outcome) => ({ ...outcome, body: { ...outcome.body, target } });
  if (kind === 'like') {
    return call('like', 'POST', `/post/${posts[to]}/like`, { token, json: { like: true } }).then(withTarget);
  }
  if (kind === 'follow') {
    return call('follow', 'POST', `/${people[to].username}/follow`, { token, json: { follow: true } }).then(withTarget);
  }
  return call('comment', 'POST', `/post/${posts[to]}/comment`, { token, json: { body: `under fault ${Date.now()}` } })
    .then(withTarget);
}

describe.skipIf(!authIsRunning)("the facade's database sessions terminated under likes, follows and comments", () => {
  it('loses no acknowledged write, keeps the counters exact, and recovers without a restart', async () => {
    const functionPid = servicePid('functions');
    const people = await Promise.all(Array.from({ length: actors }, () => createLoadWriter('social')));
    const posts: string[] = [];
    for (const person of people) {
      const post = await call('setup', 'POST', '/post/create', {
        token: person.accessToken,
        json: { body: 'a day to like' },
      });
      expect(post.status).toBe(201);
      posts.push(post.body.id);
    }

    const kinds = ['like', 'follow', 'comment'];
    const traffic = startTraffic(workers, (worker, n) => write(kinds[(worker + n) % kinds.length], people, posts));
    await sleep(steadyMs);
    const faultsFrom = performance.now();
    const terminated = await withDatabase(async (sql) => {
      const total = { rounds: 0, ended: 0, inTransaction: 0 };
      while (performance.now() - faultsFrom < faultMs) {
        const { ended, inTransaction } = await terminateFunctionBackends(sql);
        total.rounds += 1;
        total.ended += ended;
        total.inTransaction += inTransaction;
        await sleep(everyMs);
      }
      return total;
    });
    const faultsTo = performance.now();
    const recovered = await waitUntil(() => traffic.outcomes.some((o) => o.at > faultsTo && ok(o)), recoveryBoundMs);
    await sleep(steadyMs);
    const outcomes = await traffic.stop();

    const acknowledged = outcomes.filter(ok);
    const pairs = (kind: string) =>
      acknowledged.filter((o) => o.kind === kind).map((o) => o.body.target as { by: string; to: string; post: string });
    const commentIds = acknowledged.filter((o) => o.kind === 'comment').map((o) => o.body.id as string);
    const found = await withDatabase(async (sql) => {
      const likes = pairs('like').map(({ by, post }) => ({ user_id: by, post_id: post }));
      const follows = pairs('follow').map(({ by, to }) => ({ follower_id: by, followee_id: to }));
      const [{ likes: likesFound }] = await sql`
        select count(*)::int as likes from (select distinct * from jsonb_to_recordset(${
        sql.json(likes)
      }) as a(user_id uuid, post_id uuid)) a
        where exists (select 1 from public.post_likes l where l.user_id = a.user_id and l.post_id = a.post_id)`;
      const [{ likes: likesAcknowledged }] = await sql`
        select count(*)::int as likes from (select distinct * from jsonb_to_recordset(${
        sql.json(likes)
      }) as a(user_id uuid, post_id uuid)) a`;
      const [{ follows: followsFound, acknowledged: followsAcknowledged }] = await sql`
        select count(*) filter (where exists (
            select 1 from public.follows f where f.follower_id = a.follower_id and f.followee_id = a.followee_id))::int as follows,
          count(*)::int as acknowledged
        from (select distinct * from jsonb_to_recordset(${
        sql.json(follows)
      }) as a(follower_id uuid, followee_id uuid)) a`;
      const [{ comments }] =
        await sql`select count(*)::int as comments from public.comments where id = any(${commentIds}::uuid[])`;
      const [{ corrections }] = await sql`select private.recount_counters() as corrections`;
      return { likesFound, likesAcknowledged, followsFound, followsAcknowledged, comments, corrections };
    });
    const lost = {
      likes: found.likesAcknowledged - found.likesFound,
      follows: found.followsAcknowledged - found.followsFound,
      comments: commentIds.length - found.comments,
    };
    const functionPidAfter = servicePid('functions');
    printFigures(
      `pg_terminate_backend on the function's sessions every ${everyMs} ms for ${
        faultMs / 1000
      } s under ${workers} writers`,
      {
        'requests': outcomes.length,
        'acknowledged (2xx)': acknowledged.length,
        'sessions terminated':
          `${terminated.ended} in ${terminated.rounds} rounds, ${terminated.inTransaction} inside a transaction`,
        'likes found': `${found.likesFound} of ${found.likesAcknowledged} acknowledged (distinct)`,
        'follows found': `${found.followsFound} of ${found.followsAcknowledged} acknowledged (distinct)`,
        'comments found': `${found.comments} of ${commentIds.length} acknowledged`,
        'lost acknowledged writes': lost,
        'counter corrections by recount': found.corrections,
        'failures by kind, status and code': failuresByCode(outcomes),
        'first failure → first success': formatMs(outageMs(outcomes, faultsFrom)),
        'recovery after the last termination': recovered
          ? formatMs(traffic.outcomes.find((o) => o.at > faultsTo && ok(o))!.at - faultsTo)
          : 'NO RECOVERY',
        'function process': functionPidAfter === functionPid
          ? `the same (pid ${functionPid})`
          : `RESTARTED (pid ${functionPid} → ${functionPidAfter})`,
      },
    );

    expect(lost, 'acknowledged writes missing from the database').toEqual({ likes: 0, follows: 0, comments: 0 });
    expect(found.corrections, 'counters the recount had to correct').toBe(0);
    expect(internalErrors(outcomes), 'answers with a 500').toEqual({});
    expect(recovered, 'a success after the last termination').toBe(true);
    expect(functionPidAfter, 'the function process survived').toBe(functionPid);
  });
});

describe.runIf(!authIsRunning)("the facade's database sessions terminated under likes, follows and comments", () => {
  it('is skipped: Auth is not running', () => {
    skipLoudly(
      'terminated sessions',
      `Supabase Auth is not running, so no app schema (${stack.authUnavailable.split('\n')[0]})`,
    );
    expect(authIsRunning).toBe(false);
  });
});
