// The visibility matrix of docs/PRODUCT.md, read straight from the tables as supabase-js clients would (through
// PostgREST): each actor × each object, allowed and denied; and the rules' one-row form, which the
// security-definer helpers apply past RLS, held to the same matrix.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Account, banDirectly, createAccount, makeAdmin } from '../helpers/accounts.ts';
import { type Actor, anon, as, asRoot, errorOf, rpc, type Tx } from '../helpers/db.ts';
import { authIsRunning } from '../helpers/stack.ts';

/** Runs `work` as the cluster superuser, past RLS, with the actor's claims (as the security-definer helpers run). */
function pastRls<T>(actor: Actor, work: (tx: Tx) => Promise<T>): Promise<T> {
  const claims = JSON.stringify({ ...actor.claims, role: actor.role });
  return asRoot.begin(async (tx) => {
    await tx`select set_config('request.jwt.claims', ${claims}, true)`;
    return work(tx);
  }) as Promise<T>;
}

type PostKey =
  | 'pubPublic'
  | 'pubClose'
  | 'pubPrivate'
  | 'pubBanned'
  | 'privPublic'
  | 'privClose'
  | 'privPrivate'
  | 'bannedAuthorPost';

describe.skipIf(!authIsRunning)('visibility through RLS', () => {
  const a = {} as Record<string, Account>;
  const posts = {} as Record<PostKey, string>;
  const actors = () => ({ anon, ...a }) as Record<string, Actor>;

  async function post(author: Account, privacy: string): Promise<string> {
    const [row] = await asRoot`
      insert into public.posts (author_id, body, privacy) values (${author.id}, ${
      'a day of ' + author.name
    }, ${privacy})
      returning id`;
    return row.id;
  }

  async function follow(follower: Account, followee: Account): Promise<void> {
    await asRoot`insert into public.follows (follower_id, followee_id) values (${follower.id}, ${followee.id})`;
    await asRoot`update public.follows set status = 'accepted' where follower_id = ${follower.id} and followee_id = ${followee.id} and status = 'pending'`;
  }

  beforeAll(async () => {
    for (
      const name of [
        'pub',
        'stranger',
        'follower',
        'requester',
        'closeFriend',
        'closeOnly',
        'blocked',
        'blocker',
        'admin',
        'bannedOwner',
        'bannedViewer',
      ]
    ) {
      a[name] = await createAccount(name);
    }
    a.priv = await createAccount('priv', { isPrivate: true });
    await makeAdmin(a.admin);

    await follow(a.follower, a.pub);
    await follow(a.follower, a.priv);
    await follow(a.closeFriend, a.pub);
    await follow(a.closeFriend, a.priv);
    await asRoot`insert into public.follows (follower_id, followee_id) values (${a.requester.id}, ${a.priv.id})`;
    await asRoot`insert into public.close_friends (owner_id, friend_id) values
      (${a.pub.id}, ${a.closeFriend.id}), (${a.priv.id}, ${a.closeFriend.id}), (${a.priv.id}, ${a.closeOnly.id})`;

    posts.pubPublic = await post(a.pub, 'public');
    posts.pubClose = await post(a.pub, 'close_friends');
    posts.pubPrivate = await post(a.pub, 'private');
    posts.pubBanned = await post(a.pub, 'public');
    posts.privPublic = await post(a.priv, 'public');
    posts.privClose = await post(a.priv, 'close_friends');
    posts.privPrivate = await post(a.priv, 'private');
    posts.bannedAuthorPost = await post(a.bannedOwner, 'public');
    await asRoot`select moderation.ban_post(${posts.pubBanned}, 'banned by a test')`;
    await banDirectly(a.bannedOwner);
    await banDirectly(a.bannedViewer);

    // Likes and comments on pub's public post, one of each by the user pub then blocks (made as root).
    await asRoot`insert into public.post_likes (post_id, user_id) values
      (${posts.pubPublic}, ${a.follower.id}), (${posts.pubPublic}, ${a.stranger.id}), (${posts.pubPublic}, ${a.blocked.id})`;
    await asRoot`insert into public.comments (post_id, author_id, body) values
      (${posts.pubPublic}, ${a.follower.id}, 'nice'), (${posts.pubPublic}, ${a.stranger.id}, 'hello'),
      (${posts.pubPublic}, ${a.blocked.id}, 'hidden from pub')`;
    // The blocks come after: no account likes or comments across one (supabase/schemas/32_direct_edit_guards.sql).
    await asRoot`insert into public.blocks (blocker_id, blocked_id) values
      (${a.pub.id}, ${a.blocked.id}), (${a.priv.id}, ${a.blocked.id}), (${a.blocker.id}, ${a.pub.id}), (${a.blocker.id}, ${a.priv.id})`;
  });

  const visiblePosts: Record<string, PostKey[]> = {
    anon: ['pubPublic'],
    stranger: ['pubPublic'],
    requester: ['pubPublic'],
    follower: ['pubPublic', 'privPublic'],
    closeFriend: ['pubPublic', 'pubClose', 'privPublic', 'privClose'],
    closeOnly: ['pubPublic'],
    blocked: [],
    blocker: [],
    bannedViewer: ['pubPublic'],
    pub: ['pubPublic', 'pubClose', 'pubPrivate', 'pubBanned'],
    priv: ['pubPublic', 'privPublic', 'privClose', 'privPrivate'],
    admin: [
      'pubPublic',
      'pubClose',
      'pubPrivate',
      'pubBanned',
      'privPublic',
      'privClose',
      'privPrivate',
      'bannedAuthorPost',
    ],
  };

  for (const [actor, expected] of Object.entries(visiblePosts)) {
    it(`${actor} sees exactly the posts ${expected.join(', ') || '(none)'}`, async () => {
      const ids = Object.values(posts);
      const rows = await as(actors()[actor], (tx) => tx`select id from public.posts where id = any(${ids}::uuid[])`);
      const seen = Object.entries(posts).filter(([, id]) => rows.some((r) => r.id === id)).map(([key]) => key);
      expect(seen.sort()).toEqual([...expected].sort());
    });

    it(`${actor}: the one-row form of the rule (private.may_see_post) agrees`, async () => {
      const ids = Object.values(posts);
      const rows = await pastRls(
        actors()[actor],
        (tx) =>
          tx`select p.id from public.posts p where p.id = any(${ids}::uuid[]) and private.may_see_post(p, private.uid())`,
      );
      const seen = Object.entries(posts).filter(([, id]) => rows.some((r) => r.id === id)).map(([key]) => key);
      expect(seen.sort()).toEqual([...expected].sort());
    });
  }

  const visibleProfiles: Record<string, string[]> = {
    anon: ['pub', 'priv', 'blocked', 'blocker'],
    stranger: ['pub', 'priv', 'blocked', 'blocker'],
    blocked: ['blocked', 'blocker'],
    blocker: ['blocker', 'blocked'],
    pub: ['pub', 'priv'],
    admin: ['pub', 'priv', 'blocked', 'blocker', 'bannedOwner'],
  };

  for (const [actor, expected] of Object.entries(visibleProfiles)) {
    it(`${actor} sees the profiles of exactly ${expected.join(', ') || '(none)'} among pub, priv, blocked, blocker, bannedOwner`, async () => {
      const subjects = ['pub', 'priv', 'blocked', 'blocker', 'bannedOwner'];
      const ids = subjects.map((s) => a[s].id);
      const rows = await as(actors()[actor], (tx) => tx`select id from public.profiles where id = any(${ids}::uuid[])`);
      const seen = subjects.filter((s) => rows.some((r) => r.id === a[s].id));
      expect(seen.sort()).toEqual([...expected].sort());
    });

    it(`${actor}: the one-row form of the rule (private.may_see_profile) agrees`, async () => {
      const subjects = ['pub', 'priv', 'blocked', 'blocker', 'bannedOwner'];
      const ids = subjects.map((s) => a[s].id);
      const rows = await pastRls(
        actors()[actor],
        (tx) =>
          tx`select p.id from public.profiles p where p.id = any(${ids}::uuid[]) and private.may_see_profile(p, private.uid())`,
      );
      const seen = subjects.filter((s) => rows.some((r) => r.id === a[s].id));
      expect(seen.sort()).toEqual([...expected].sort());
    });
  }

  const visibleLikers: Record<string, string[]> = {
    anon: ['follower', 'stranger', 'blocked'],
    stranger: ['follower', 'stranger', 'blocked'],
    pub: ['follower', 'stranger'],
    blocked: [],
    admin: ['follower', 'stranger', 'blocked'],
  };

  for (const [actor, expected] of Object.entries(visibleLikers)) {
    it(`${actor} sees the likes of pub's public post by ${expected.join(', ') || '(nobody)'}`, async () => {
      const rows = await as(
        actors()[actor],
        (tx) => tx`select user_id from public.post_likes where post_id = ${posts.pubPublic}`,
      );
      const seen = ['follower', 'stranger', 'blocked'].filter((s) => rows.some((r) => r.user_id === a[s].id));
      expect(seen.sort()).toEqual([...expected].sort());
    });

    it(`${actor} sees the comments on pub's public post by ${expected.join(', ') || '(nobody)'}`, async () => {
      const rows = await as(
        actors()[actor],
        (tx) => tx`select author_id from public.comments where post_id = ${posts.pubPublic}`,
      );
      const seen = ['follower', 'stranger', 'blocked'].filter((s) => rows.some((r) => r.author_id === a[s].id));
      expect(seen.sort()).toEqual([...expected].sort());
    });
  }

  // The private account's calendar, posts by day, followers and following: the owner, accepted followers
  // and admins see them (200); a visible non-follower gets 403 private_account; someone blocked gets 404.
  const privateActivity: Record<string, 'allowed' | 'PT403' | 'PT404'> = {
    anon: 'PT403',
    stranger: 'PT403',
    requester: 'PT403',
    closeOnly: 'PT403',
    follower: 'allowed',
    closeFriend: 'allowed',
    priv: 'allowed',
    admin: 'allowed',
    blocked: 'PT404',
    blocker: 'PT404',
  };

  for (const [actor, expected] of Object.entries(privateActivity)) {
    it(`${actor} ${expected === 'allowed' ? 'reads' : `gets ${expected} for`} priv's calendar, posts by day and follow lists`, async () => {
      const who = actors()[actor];
      const today = (await asRoot`select day::text from public.posts where id = ${posts.privPublic}`)[0].day;
      // One call at a time: a call started before the previous one is awaited would reject unobserved.
      const calls: [string, Record<string, unknown>][] = [
        ['calendar', { p_username: a.priv.username }],
        ['posts_by_day', { p_username: a.priv.username, p_day: today }],
        ['followers', { p_username: a.priv.username }],
        ['following', { p_username: a.priv.username }],
        ['user_posts', { p_username: a.priv.username }],
      ];
      for (const [fn, args] of calls) {
        if (expected === 'allowed') await expect(rpc(who, fn, args)).resolves.toBeDefined();
        else expect((await errorOf(rpc(who, fn, args))).code).toBe(expected);
      }
    });
  }

  it('the calendar counts only the posts each viewer may see', async () => {
    const counts = async (who: Actor) =>
      (await rpc(who, 'calendar', { p_username: a.priv.username })).days
        .reduce((sum: number, d: { count: number }) => sum + d.count, 0);
    expect(await counts(a.follower)).toBe(1);
    expect(await counts(a.closeFriend)).toBe(2);
    expect(await counts(a.priv)).toBe(3);
    expect(await counts(a.admin)).toBe(3);
  });

  it('followers lists show only visible followers', async () => {
    const names = async (who: Actor) =>
      (await rpc(who, 'followers', { p_username: a.pub.username })).items
        .map((p: { username: string }) => p.username).sort();
    expect(await names(a.stranger)).toEqual([a.closeFriend.username, a.follower.username].sort());
    await asRoot`insert into public.blocks (blocker_id, blocked_id) values (${a.stranger.id}, ${a.follower.id})`;
    expect(await names(a.stranger)).toEqual([a.closeFriend.username]);
    await asRoot`delete from public.blocks where blocker_id = ${a.stranger.id}`;
  });

  it('every table of the exposed schema has row-level security on', async () => {
    const open = await asRoot`select tablename from pg_tables where schemaname = 'public' and not rowsecurity`;
    expect(open).toEqual([]);
    const tables = await asRoot`select count(*)::int as n from pg_tables where schemaname = 'public'`;
    expect(tables[0].n).toBeGreaterThanOrEqual(10);
  });

  it('a pending request is visible to its two parties only', async () => {
    const query = (tx: Parameters<Parameters<typeof as>[1]>[0]) =>
      tx`select status from public.follows where follower_id = ${a.requester.id} and followee_id = ${a.priv.id}`;
    expect(await as(a.requester, query)).toEqual([{ status: 'pending' }]);
    expect(await as(a.priv, query)).toEqual([{ status: 'pending' }]);
    expect(await as(a.stranger, query)).toEqual([]);
    expect(await as(anon, query)).toEqual([]);
  });

  it('close-friend lists and blocks are seen by their owner only', async () => {
    expect(await as(a.priv, (tx) => tx`select friend_id from public.close_friends where owner_id = ${a.priv.id}`))
      .toHaveLength(2);
    expect(
      await as(a.closeFriend, (tx) => tx`select 1 from public.close_friends where friend_id = ${a.closeFriend.id}`),
    ).toEqual([]);
    expect(await as(a.pub, (tx) => tx`select blocked_id from public.blocks where blocker_id = ${a.pub.id}`))
      .toHaveLength(1);
    expect(await as(a.blocked, (tx) => tx`select 1 from public.blocks where blocked_id = ${a.blocked.id}`)).toEqual([]);
  });
});
