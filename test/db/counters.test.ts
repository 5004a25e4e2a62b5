// Counters stay exact under concurrent writes: after a burst of simultaneous likes, unlikes, follows and
// unfollows, each counter it wrote equals its rows, as private.recount_counters would count them.
import { describe, expect, it } from 'vitest';
import { createAccount, createLoadWriter } from '../helpers/accounts.ts';
import { asRoot, rpc } from '../helpers/db.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('counters under concurrency', () => {
  it('equal their rows after simultaneous likes, unlikes, follows, unfollows and comments', async () => {
    const star = await createAccount('star');
    const fans = await Promise.all(Array.from({ length: 10 }, () => createAccount('fan')));
    const post = await rpc(star, 'create_post', { p_body: 'popular' });

    const burst = fans.flatMap((fan, i) => [
      ...Array.from({ length: 5 }, () => rpc(fan, 'like_post', { p_post_id: post.id })),
      ...Array.from({ length: 3 + (i % 2) }, () => rpc(fan, 'follow', { p_username: star.username })),
      rpc(fan, 'follow', { p_username: fans[(i + 1) % fans.length].username }),
      rpc(fan, 'comment_post', { p_post_id: post.id, p_body: `comment ${i}` }),
    ]);
    const results = await Promise.allSettled(burst);
    // A toggle may lose a race (another toggle of the same pair committed first); none may corrupt a count.
    const failures = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    for (const failure of failures) expect(failure.reason.code).toMatch(/^(40001|40P01|23505)$/);

    const [{ likes }] = await asRoot`select count(*)::int as likes from public.post_likes where post_id = ${post.id}`;
    const [{ followers }] =
      await asRoot`select count(*)::int as followers from public.follows where followee_id = ${star.id} and status = 'accepted'`;
    const fresh = await rpc(star, 'get_post', { p_post_id: post.id });
    expect(fresh.likes_count).toBe(likes);
    expect(fresh.comments_count).toBe(10);
    expect((await rpc(star, 'get_profile', { p_username: star.username })).followers_count).toBe(followers);
    // Nothing the integrity report (each column plus its pending changes, counted as the recount counts) finds
    // wrong about this post and these accounts, folded or not (another file's fold may hold a row this instant).
    // Not a global recount: other files write meanwhile.
    await asRoot`select private.fold_pending_counts()`;
    const ours = [post.id, star.id, ...fans.map((fan) => fan.id)];
    expect(
      await asRoot`select element_id, detail from moderation.integrity_report()
                   where problem = 'counter' and element_id = any(${ours}::uuid[])`,
    ).toEqual([]);
  });

  it(
    'a viral post: 16 callers each toggling a like 1,000 times at once lose, double and overdraw no count',
    async () => {
      const author = await createAccount('viral');
      // Load writers: the write limits (200 likes in 3 hours) are tested on their own.
      const likers = await Promise.all(Array.from({ length: 16 }, () => createLoadWriter('liker')));
      const post = await rpc(author, 'create_post', { p_body: 'everyone likes this' });
      const pendingMade = async () =>
        Number((await asRoot`select last_value from private.pending_counts_id_seq`)[0].last_value);
      const pendingBefore = await pendingMade();
      await Promise.all(likers.map(async (liker) => {
        for (let toggle = 0; toggle < 1000; toggle++) {
          const shown = await rpc(liker, 'like_post', { p_post_id: post.id });
          expect(shown.likes_count).toBeGreaterThanOrEqual(0);
          expect(shown.likes_count).toBeLessThanOrEqual(16);
        }
      }));
      // Each toggled an even number of times: no like is left, whatever ran at once.
      const [{ likes }] = await asRoot`select count(*)::int as likes from public.post_likes where post_id = ${post.id}`;
      expect(likes).toBe(0);
      expect((await rpc(author, 'get_post', { p_post_id: post.id })).likes_count).toBe(0);
      // The writers met the busy row and went on without it: some changes waited as pending ones, added in place
      // to rows no writer held (about a row per change pending at the same moment), not a row per change (16,000
      // toggles). Another file's fold may have dropped some of them since: the count is at most what was made.
      expect(await pendingMade()).toBeGreaterThan(pendingBefore);
      const [{ rows }] =
        await asRoot`select count(*)::int as rows from private.pending_counts where target_id = ${post.id}`;
      expect(rows).toBeLessThanOrEqual(200);
      // Folded, the column alone is exact. Another file's fold (the Studio tests repair with one) may hold this
      // counter a moment and fold it itself: fold again until nothing of it is pending.
      for (let round = 0; round < 20; round++) {
        await asRoot`select private.fold_pending_counts()`;
        const left = await asRoot`select 1 from private.pending_counts where target_id = ${post.id} and delta <> 0`;
        if (left.length === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const [row] = await asRoot`select likes_count from public.posts where id = ${post.id}`;
      expect(row.likes_count).toBe(0);
      expect(await asRoot`select 1 from private.pending_counts where target_id = ${post.id} and delta <> 0`)
        .toHaveLength(0);
    },
    180_000,
  );

  it("a fold between bursts keeps at most 64 of its counter's rows left at 0; one during a burst drops none", async () => {
    const author = await createAccount('burst');
    const [liker, other] = await Promise.all([createAccount('liker'), createAccount('other')]);
    const post = await rpc(author, 'create_post', { p_body: 'after the burst' });
    // What a burst of writers leaves: 100 rows of the post's likes counter folded to 0, and one change still pending.
    await asRoot.begin(async (tx) => {
      await tx`select set_config('private.recounting', 'on', true)`;
      await tx`insert into private.pending_counts (counter, target_id, delta)
               select 'post_likes', ${post.id}, 0 from generate_series(1, 100)`;
    });
    await asRoot.begin(async (holder) => {
      await holder`select 1 from public.posts where id = ${post.id} for no key update`;
      await rpc(other, 'like_post', { p_post_id: post.id });
    });
    const rowsOfCounter = async () =>
      (await asRoot`select count(*)::int as rows from private.pending_counts where target_id = ${post.id}`)[0].rows;
    expect(await rowsOfCounter()).toBe(100);
    // This fold takes the pending change: the burst may still be on, so the rows stay for its writers.
    expect(await rpc(liker, 'like_post', { p_post_id: post.id })).toMatchObject({ likes_count: 2 });
    expect(await rowsOfCounter()).toBe(100);
    // This one finds nothing to take: the burst is over, the rows beyond 64 go.
    expect(await rpc(liker, 'like_post', { p_post_id: post.id })).toMatchObject({ likes_count: 1 });
    expect(await rowsOfCounter()).toBe(64);
    expect(await asRoot`select likes_count from public.posts where id = ${post.id}`).toEqual([{ likes_count: 1 }]);
    expect(await asRoot`select detail from moderation.integrity_report() where element_id = ${post.id}`).toEqual([]);
  });

  it('the tables holding counters are vacuumed at 100 dead versions, whatever their size', async () => {
    const options = await asRoot`
      select c.relname, c.reloptions from pg_class c
      where c.oid in ('public.posts'::regclass, 'public.comments'::regclass, 'public.profiles'::regclass)
      order by c.relname`;
    const expected = ['autovacuum_vacuum_scale_factor=0', 'autovacuum_vacuum_threshold=100'];
    expect(options).toEqual(
      ['comments', 'posts', 'profiles'].map((relname) => ({ relname, reloptions: expect.arrayContaining(expected) })),
    );
  });

  it('fold and recount while a counted row is busy: its pending change waits for the next fold, nothing fails', async () => {
    const author = await createAccount('busy');
    const fan = await createAccount('busyfan');
    const post = await rpc(author, 'create_post', { p_body: 'wanted' });
    await asRoot.begin(async (holder) => {
      await holder`select 1 from public.posts where id = ${post.id} for no key update`;
      await rpc(fan, 'like_post', { p_post_id: post.id });
      await asRoot`select private.fold_pending_counts()`;
      expect(await asRoot`select delta from private.pending_counts where target_id = ${post.id}`).toEqual([{
        delta: 1,
      }]);
    });
    await asRoot`select private.fold_pending_counts()`;
    expect(await asRoot`select likes_count from public.posts where id = ${post.id}`).toEqual([{ likes_count: 1 }]);
    expect(await asRoot`select 1 from private.pending_counts where target_id = ${post.id}`).toEqual([]);
  });

  it("take a deleted account's likes off every post it liked, in one statement, and keep the others' likes", async () => {
    const [leaver, stayer, author] = await Promise.all(
      ['leaver', 'stayer', 'author'].map((label) => createAccount(label)),
    );
    const posts = await Promise.all(
      ['one', 'two', 'three'].map((body) => rpc(author, 'create_post', { p_body: body })),
    );
    for (const post of posts) await rpc(leaver, 'like_post', { p_post_id: post.id });
    await rpc(stayer, 'like_post', { p_post_id: posts[0].id });
    expect((await rpc(author, 'get_post', { p_post_id: posts[0].id })).likes_count).toBe(2);

    // As Supabase Auth deletes an account: its likes go by cascade, three rows in one statement.
    await asRoot`delete from auth.users where id = ${leaver.id}`;
    const counts = await Promise.all(
      posts.map(async (post) => (await rpc(author, 'get_post', { p_post_id: post.id })).likes_count),
    );
    expect(counts).toEqual([1, 0, 0]);
    // Nothing the integrity report (which counts as the recount does) finds wrong about these posts and accounts;
    // not a global recount, which other files' writes in flight make nonzero.
    const ours = [...posts.map((post) => post.id), stayer.id, author.id];
    expect(
      await asRoot`select element_id, detail from moderation.integrity_report()
                   where problem = 'counter' and element_id = any(${ours}::uuid[])`,
    ).toEqual([]);
  });

  it('recount_counters repairs a counter that drifted; a counter found too low never fails an unlike', async () => {
    const [author, fan] = await Promise.all([createAccount('author'), createAccount('fan')]);
    const post = await rpc(author, 'create_post', { p_body: 'drift' });
    await rpc(fan, 'like_post', { p_post_id: post.id });
    // As a data load with its triggers off (a partial restore) would leave it.
    await asRoot.begin(async (tx) => {
      await tx`set local session_replication_role = replica`;
      await tx`update public.posts set likes_count = 0 where id = ${post.id}`;
    });
    await rpc(fan, 'like_post', { p_post_id: post.id, p_like: false });
    expect(await asRoot`select 1 from public.post_likes where post_id = ${post.id}`).toHaveLength(0);
    expect((await rpc(author, 'get_post', { p_post_id: post.id })).likes_count).toBe(0);
    await asRoot.begin(async (tx) => {
      await tx`set local session_replication_role = replica`;
      await tx`update public.posts set likes_count = 42 where id = ${post.id}`;
    });
    const [{ corrected }] = await asRoot`select private.recount_counters() as corrected`;
    expect(corrected).toBe(1);
    expect((await rpc(author, 'get_post', { p_post_id: post.id })).likes_count).toBe(0);
  });
});
