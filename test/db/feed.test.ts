// The home feed (public.feed): the posts of the accounts the caller follows and their own, each one only if
// the posts policy lets the caller see it, newest first, by pages.
import { describe, expect, it } from 'vitest';
import { type Account, banDirectly, createAccount, importedPasswordHash } from '../helpers/accounts.ts';
import { anon, as, asRoot, errorOf, rpc } from '../helpers/db.ts';
import { authIsRunning } from '../helpers/stack.ts';

/** Thrown to roll a transaction back with a value the test reads. */
class RolledBack extends Error {
  constructor(readonly value: unknown) {
    super('rolled back');
  }
}

const feedBodies = async (reader: Account, args: Record<string, unknown> = {}) =>
  (await rpc(reader, 'feed', args)).items.map((post: { body: string }) => post.body);

describe.skipIf(!authIsRunning)('the home feed', () => {
  it("holds the posts of followed accounts and one's own, newest first, and nobody else's", async () => {
    const reader = await createAccount('reader');
    const friend = await createAccount('friend');
    const stranger = await createAccount('stranger');
    await rpc(reader, 'follow', { p_username: friend.username });
    await rpc(friend, 'create_post', { p_body: 'friend 1' });
    await rpc(stranger, 'create_post', { p_body: 'stranger 1' });
    await rpc(reader, 'create_post', { p_body: 'mine 1' });
    await rpc(friend, 'create_post', { p_body: 'friend 2' });
    expect(await feedBodies(reader)).toEqual(['friend 2', 'mine 1', 'friend 1']);
    expect(await feedBodies(stranger)).toEqual(['stranger 1']);
    expect((await rpc(reader, 'feed')).items[0]).toMatchObject({
      author: { username: friend.username },
      viewer: { liked: false, is_author: false },
    });
  });

  it("shows a private account's posts only once its follow request is accepted", async () => {
    const reader = await createAccount('reader');
    const shy = await createAccount('shy', { isPrivate: true });
    await rpc(shy, 'create_post', { p_body: 'for followers' });
    await rpc(reader, 'follow', { p_username: shy.username });
    expect(await feedBodies(reader)).toEqual([]);
    await rpc(shy, 'respond_follow_request', { p_username: reader.username, p_accept: true });
    expect(await feedBodies(reader)).toEqual(['for followers']);
  });

  it("shows close-friends posts to the author's close friends only, and private posts to nobody else", async () => {
    const author = await createAccount('author');
    const close = await createAccount('close');
    const follower = await createAccount('follower');
    for (const reader of [close, follower]) await rpc(reader, 'follow', { p_username: author.username });
    await rpc(author, 'set_close_friend', { p_username: close.username, p_close: true });
    await rpc(author, 'create_post', { p_body: 'for everyone' });
    await rpc(author, 'create_post', { p_body: 'for close friends', p_privacy: 'close_friends' });
    await rpc(author, 'create_post', { p_body: 'for me', p_privacy: 'private' });
    expect(await feedBodies(close)).toEqual(['for close friends', 'for everyone']);
    expect(await feedBodies(follower)).toEqual(['for everyone']);
    expect(await feedBodies(author)).toEqual(['for me', 'for close friends', 'for everyone']);
  });

  it('loses the posts across a block, whoever blocks, and those of a banned author at once', async () => {
    const reader = await createAccount('reader');
    const blocker = await createAccount('blocker');
    const blocked = await createAccount('blocked');
    const offender = await createAccount('offender');
    for (const author of [blocker, blocked, offender]) {
      await rpc(reader, 'follow', { p_username: author.username });
      await rpc(author, 'create_post', { p_body: `by ${author.name}` });
    }
    expect(await feedBodies(reader)).toEqual(['by offender', 'by blocked', 'by blocker']);
    await rpc(blocker, 'block', { p_username: reader.username });
    await rpc(reader, 'block', { p_username: blocked.username });
    await banDirectly(offender);
    expect(await feedBodies(reader)).toEqual([]);
  });

  it('keeps the same rules for a reader following more than 100 accounts', async () => {
    const word = `w${crypto.randomUUID().replace(/-/g, '').slice(0, 12)}`;
    await asRoot`
      insert into auth.users (instance_id, id, aud, role, encrypted_password, email, email_confirmed_at, raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
      select '00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', 'authenticated', ${importedPasswordHash},
        ${word} || n || '@example.test', now(), '{"provider": "email", "providers": ["email"]}',
        jsonb_build_object('username', ${word} || n), now(), now()
      from generate_series(1, 120) n`;
    const reader = await createAccount('reader');
    const author = await createAccount('author');
    const blocker = await createAccount('blocker');
    const stranger = await createAccount('stranger');
    await asRoot`
      insert into public.follows (follower_id, followee_id)
      select ${reader.id}, p.id from public.profiles p where p.username like ${word + '%'}`;
    for (const followed of [author, blocker]) await rpc(reader, 'follow', { p_username: followed.username });
    await rpc(author, 'create_post', { p_body: 'for everyone' });
    await rpc(author, 'create_post', { p_body: 'for close friends', p_privacy: 'close_friends' });
    await rpc(author, 'create_post', { p_body: 'for me', p_privacy: 'private' });
    await rpc(blocker, 'create_post', { p_body: 'by blocker' });
    await rpc(stranger, 'create_post', { p_body: 'by stranger' });
    await rpc(reader, 'create_post', { p_body: 'mine' });
    expect((await rpc(reader, 'me')).following_count).toBe(122);
    expect(await feedBodies(reader)).toEqual(['mine', 'by blocker', 'for everyone']);
    await rpc(blocker, 'block', { p_username: reader.username });
    expect(await feedBodies(reader)).toEqual(['mine', 'for everyone']);
    const first = await rpc(reader, 'feed', { p_limit: 1 });
    expect(first.items.map((post: { body: string }) => post.body)).toEqual(['mine']);
    expect(await feedBodies(reader, { p_limit: 1, p_cursor: first.next_cursor })).toEqual(['for everyone']);
  });

  it('asks each followed account for its newest posts by the same rules (private.visible_posts_by), past hidden ones', async () => {
    const [reader, author, shy, blocker, offender] = await Promise.all(
      ['reader', 'author', 'shy', 'blocker', 'offender'].map((label) =>
        createAccount(label, { isPrivate: label === 'shy' })
      ),
    );
    for (const followed of [author, blocker, offender]) await rpc(reader, 'follow', { p_username: followed.username });
    const older = (await rpc(author, 'create_post', { p_body: 'older, for everyone' })).id;
    const shown = (await rpc(author, 'create_post', { p_body: 'for everyone' })).id;
    const close = (await rpc(author, 'create_post', { p_body: 'for close friends', p_privacy: 'close_friends' })).id;
    const own = (await rpc(author, 'create_post', { p_body: 'for me', p_privacy: 'private' })).id;
    await rpc(shy, 'create_post', { p_body: 'shy, not followed' });
    const blockers = (await rpc(blocker, 'create_post', { p_body: 'by blocker' })).id;
    await rpc(offender, 'create_post', { p_body: 'by offender' });
    await rpc(blocker, 'block', { p_username: reader.username });
    await banDirectly(offender);
    const authors = [author, shy, blocker, offender].map((account) => account.id);
    const [{ at: shownAt }] = await asRoot`select created_at::text as at from public.posts where id = ${shown}`;
    const probed = async (actor: Account, limit: number, options: { before?: [string, string]; day?: string } = {}) => {
      const [beforeAt, beforeId] = options.before ?? ['infinity', 'ffffffff-ffff-ffff-ffff-ffffffffffff'];
      const [{ ids }] = await as(actor, (tx) =>
        tx`
        select array(select v.id from private.visible_posts_by(${authors}::uuid[], ${
          options.day ?? null
        }::date, ${beforeAt}::text::timestamptz,
          ${beforeId}, '-infinity', '00000000-0000-0000-0000-000000000000', ${limit}) v) as ids`);
      return ids;
    };
    expect(await probed(reader, 10)).toEqual([shown, older]);
    expect(await probed(reader, 1)).toEqual([shown]); // past the two newer ones hidden from the reader
    expect(await probed(reader, 10, { before: [shownAt, shown] })).toEqual([older]);
    expect(await probed(reader, 10, { day: '2001-01-01' })).toEqual([]);
    expect(await probed(author, 3)).toEqual([blockers, own, close]); // the blocker blocked the reader, not the author
    expect(
      (await errorOf(as(anon, (tx) =>
        tx`
      select * from private.visible_posts_by(${authors}::uuid[], null, 'infinity', ${shown}, '-infinity', ${shown}, 10)`)))
        .code,
    )
      .toBe('42501');
  });

  it('asks the followed accounts newest first and stops early, yet pages through every post once, ties included', async () => {
    const reader = await createAccount('reader');
    const authors = await Promise.all(Array.from({ length: 25 }, (_, i) => createAccount(`author${i}`)));
    const ids = authors.map((author) => author.id);
    const follow = (part: string[]) =>
      asRoot`
      insert into public.follows (follower_id, followee_id) select ${reader.id}, a from unnest(${part}::uuid[]) a`;
    await follow(ids.slice(0, 12)); // these sources are raised as posts are written; the others start from their newest
    // Seven transactions, each a post by a different subset of the authors: the posts of one share its time.
    for (let round = 0; round < 7; round++) {
      await asRoot`
        insert into public.posts (author_id, body)
        select a, 'round ' || ${round} from unnest(${ids}::uuid[]) with ordinality a(a, n) where (n * 7 + ${round} * 3) % 5 < 2`;
    }
    await follow(ids.slice(12));
    const expected = (await asRoot`
      select id from public.posts where author_id = any (${ids}::uuid[]) order by created_at desc, id desc`).map((
      row,
    ) => row.id);
    expect(expected.length).toBe(70);
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: Array<{ id: string }>; next_cursor: string | null } = await rpc(reader, 'feed', {
        p_limit: 3,
        p_cursor: cursor,
      });
      walked.push(...page.items.map((post) => post.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(walked).toEqual(expected);
    const [newest] = await as(reader, (tx) =>
      tx`
      select private.encode_cursor(created_at, id) as cursor from public.posts where id = ${expected[40]}`);
    expect(
      (await rpc(reader, 'feed', { p_newer_than: newest.cursor, p_limit: 100 })).items.map((post: { id: string }) =>
        post.id
      ),
    )
      .toEqual(expected.slice(0, 40));
  });

  it('finds the page past followed accounts whose newest posts are hidden from the reader or deleted', async () => {
    const reader = await createAccount('reader');
    const quiet = await createAccount('quiet');
    const others = await Promise.all(Array.from({ length: 8 }, (_, i) => createAccount(`other${i}`)));
    for (const author of [quiet, ...others]) await rpc(reader, 'follow', { p_username: author.username });
    await rpc(quiet, 'create_post', { p_body: 'the only one shown' });
    for (const [i, author] of others.entries()) {
      // Newer than the quiet account's post, each raising its author's bound above it, and none for the reader.
      const post = await rpc(author, 'create_post', {
        p_body: `hidden ${i}`,
        p_privacy: i % 2 ? 'close_friends' : 'public',
      });
      if (i % 2 === 0) await rpc(author, 'delete_post', { p_post_id: post.id });
    }
    expect(await feedBodies(reader, { p_limit: 1 })).toEqual(['the only one shown']);
    expect(await feedBodies(others[1], { p_limit: 1 })).toEqual(['hidden 1']); // its own close-friends post
  });

  it('keeps one feed source per accepted follow, its bound raised by each new post', async () => {
    const [reader, author, shy, famous] = await Promise.all(
      ['reader', 'author', 'shy', 'famous'].map((label) => createAccount(label, { isPrivate: label === 'shy' })),
    );
    const sources = async () =>
      Object.fromEntries((await asRoot`
      select followee_id, newest_post_at::text as bound from private.feed_sources where follower_id = ${reader.id}`)
        .map((row) => [row.followee_id, row.bound]));
    const postedAt = async (id: string) =>
      (await asRoot`select created_at::text as at from public.posts where id = ${id}`)[0].at;

    await rpc(reader, 'follow', { p_username: author.username });
    expect(await sources()).toEqual({ [author.id]: '-infinity' });
    const post = await rpc(author, 'create_post', { p_body: 'first' });
    const raised = { [author.id]: await postedAt(post.id) };
    expect(await sources()).toEqual(raised);
    await rpc(author, 'delete_post', { p_post_id: post.id });
    expect(await sources()).toEqual(raised); // an upper bound: left high

    const shyPost = await rpc(shy, 'create_post', { p_body: 'for followers' });
    await rpc(reader, 'follow', { p_username: shy.username });
    expect(Object.keys(await sources())).toEqual([author.id]); // a request is no source
    await rpc(shy, 'respond_follow_request', { p_username: reader.username, p_accept: true });
    expect((await sources())[shy.id]).toBe(await postedAt(shyPost.id));

    // Past 1,000 followers an account is asked always, and its posts leave the new follower's row alone. The count
    // is made up in a transaction rolled back, so that no other test (the counters' recount) ever sees it.
    const famousBound = await asRoot.begin(async (tx) => {
      // The counter as a data load would leave it (triggers off): by hand it is refused (counter_is_derived).
      await tx`set local session_replication_role = replica`;
      await tx`update public.profiles set followers_count = 1001 where id = ${famous.id}`;
      await tx`set local session_replication_role = origin`;
      await tx`insert into public.follows (follower_id, followee_id) values (${reader.id}, ${famous.id})`;
      await tx`insert into public.posts (author_id, body) values (${famous.id}, 'to many')`;
      const [{ bound }] = await tx`
        select newest_post_at::text as bound from private.feed_sources where follower_id = ${reader.id} and followee_id = ${famous.id}`;
      throw new RolledBack(bound);
    }).catch((error) => {
      if (error instanceof RolledBack) return error.value;
      throw error;
    });
    expect(famousBound).toBe('infinity');

    await rpc(reader, 'block', { p_username: shy.username });
    expect(Object.keys(await sources())).toEqual([author.id]);
    expect((await asRoot`select count(*)::int as n from private.feed_sources where follower_id = ${author.id}`)[0].n)
      .toBe(0);
  });

  it('pages by cursor without gaps or repeats, and filters by day', async () => {
    const reader = await createAccount('reader');
    for (let i = 1; i <= 5; i++) await rpc(reader, 'create_post', { p_body: `post ${i}` });
    const first = await rpc(reader, 'feed', { p_limit: 2 });
    const second = await rpc(reader, 'feed', { p_limit: 2, p_cursor: first.next_cursor });
    const third = await rpc(reader, 'feed', { p_limit: 2, p_cursor: second.next_cursor });
    expect([first, second, third].flatMap((page) => page.items.map((post: { body: string }) => post.body)))
      .toEqual(['post 5', 'post 4', 'post 3', 'post 2', 'post 1']);
    expect(third.next_cursor).toBeNull();

    const [{ today }] = await asRoot`select (now() at time zone 'UTC')::date::text as today`;
    expect(await feedBodies(reader, { p_day: today })).toHaveLength(5);
    expect(await feedBodies(reader, { p_day: '2001-01-01' })).toEqual([]);
  });

  it('needs a caller, a valid cursor and limit', async () => {
    const reader = await createAccount('reader');
    expect(await errorOf(rpc(anon, 'feed'))).toMatchObject({ code: '42501' });
    expect(await errorOf(rpc(reader, 'feed', { p_cursor: 'nonsense' }))).toMatchObject({
      code: 'PT400',
      hint: 'invalid_cursor',
    });
    expect(await errorOf(rpc(reader, 'feed', { p_limit: 101 }))).toMatchObject({
      code: 'PT400',
      hint: 'invalid_limit',
    });
  });
});
