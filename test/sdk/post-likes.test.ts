// public.post_likes through supabase-js: likers are listed to those who may see both the post and the liker;
// a like is written only as oneself on a visible post, and taken back only by its liker.
import { beforeAll, describe, expect, it } from 'vitest';
import { banDirectly, makeAdmin } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { anonSdk, refusal, rootBlock, rootPost, type Sdk, type SdkUser, sdkUser } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('post likes through supabase-js', () => {
  const u = {} as Record<string, SdkUser>;
  let post: string;

  beforeAll(async () => {
    const labels = ['author', 'liker', 'blocked', 'blocker', 'admin', 'banned', 'fresh'];
    (await Promise.all(labels.map((label) => sdkUser(label)))).forEach((user, i) => (u[labels[i]] = user));
    await makeAdmin(u.admin);
    post = await rootPost(u.author, 'public');
    await asRoot`insert into public.post_likes (post_id, user_id) values
      (${post}, ${u.liker.id}), (${post}, ${u.blocked.id}), (${post}, ${u.banned.id})`;
    await rootBlock(u.author, u.blocked); // after the like: the like stays, hidden from the author
    await rootBlock(u.blocker, u.author);
    await banDirectly(u.banned);
  });

  async function likers(client: Sdk): Promise<string[]> {
    const { data, error } = await client.from('post_likes').select('user_id').eq('post_id', post);
    expect(error).toBeNull();
    const names = Object.fromEntries(Object.entries(u).map(([name, user]) => [user.id, name]));
    return data!.map((row) => names[row.user_id]).sort();
  }

  it('select: each reader sees the likes by accounts they may see, on a post they may see', async () => {
    const seen: Record<string, string[]> = { anon: await likers(anonSdk()) };
    for (const name of ['author', 'liker', 'blocked', 'blocker', 'banned', 'admin']) {
      seen[name] = await likers(u[name].sdk);
    }
    expect(seen).toEqual({
      anon: ['blocked', 'liker'],
      author: ['liker'], // not the account they blocked, nor the banned one
      liker: ['blocked', 'liker'],
      blocked: [], // the post is invisible to them
      blocker: [],
      banned: ['blocked', 'liker'], // as anon: not even its own like
      admin: ['banned', 'blocked', 'liker'],
    });
  });

  it('insert: one likes a visible post as oneself; not as someone else, nor across a block, nor anonymously', async () => {
    const { data, error } = await u.fresh.sdk.from('post_likes').insert({ post_id: post }).select().single();
    expect(error).toBeNull();
    expect(data).toMatchObject({ post_id: post, user_id: u.fresh.id });

    const forged = await u.liker.sdk.from('post_likes').insert({ post_id: post, user_id: u.author.id });
    expect(refusal(forged)).toEqual({ status: 403, code: '42501', hint: null }); // user_id is not writable
    const blocked = await u.blocked.sdk.from('post_likes').insert({ post_id: post });
    expect(refusal(blocked)).toEqual({ status: 403, code: '42501', hint: null });
    expect(blocked.error?.message).toBe('new row violates row-level security policy for table "post_likes"');
    const blocker = await u.blocker.sdk.from('post_likes').insert({ post_id: post });
    expect(refusal(blocker)).toEqual({ status: 403, code: '42501', hint: null });
    const banned = await u.banned.sdk.from('post_likes').insert({ post_id: post });
    expect(refusal(banned)).toEqual({ status: 403, code: '42501', hint: null });
    const anon = await anonSdk().from('post_likes').insert({ post_id: post });
    expect(refusal(anon)).toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
    const twice = await u.fresh.sdk.from('post_likes').insert({ post_id: post });
    expect([twice.status, twice.error]).toEqual([201, null]); // a second like adds nothing (supabase/ERRORS.md)
  });

  it('insert: a private post cannot be liked by anyone but its author', async () => {
    const secret = await rootPost(u.author, 'private');
    const stranger = await u.liker.sdk.from('post_likes').insert({ post_id: secret });
    expect(refusal(stranger)).toEqual({ status: 403, code: '42501', hint: null });
    const own = await u.author.sdk.from('post_likes').insert({ post_id: secret }).select('user_id');
    expect(own.data).toEqual([{ user_id: u.author.id }]);
  });

  it('upsert with ignoreDuplicates is an idempotent like; a merging upsert is refused (likes are never updated)', async () => {
    const other = await rootPost(u.author, 'public');
    const like = () =>
      u.liker.sdk.from('post_likes').upsert({ post_id: other }, {
        onConflict: 'post_id,user_id',
        ignoreDuplicates: true,
      }).select('user_id');
    expect((await like()).data).toEqual([{ user_id: u.liker.id }]);
    expect((await like()).data).toEqual([]); // already liked: nothing inserted, no error
    const merge = await u.liker.sdk.from('post_likes').upsert({ post_id: other }, { onConflict: 'post_id,user_id' });
    expect(refusal(merge)).toEqual({ status: 403, code: '42501', hint: null });
    const hidden = await u.blocked.sdk.from('post_likes').upsert({ post_id: other }, {
      onConflict: 'post_id,user_id',
      ignoreDuplicates: true,
    });
    expect(refusal(hidden)).toEqual({ status: 403, code: '42501', hint: null });
  });

  it('delete: only the liker takes a like back; the author, an admin and the banned liker delete 0 rows', async () => {
    for (const name of ['author', 'admin', 'fresh']) {
      const { data, error } = await u[name].sdk.from('post_likes').delete().eq('post_id', post).eq(
        'user_id',
        u.liker.id,
      ).select();
      expect([name, error, data]).toEqual([name, null, []]);
    }
    const banned = await u.banned.sdk.from('post_likes').delete().eq('post_id', post).eq('user_id', u.banned.id)
      .select();
    expect(banned.data).toEqual([]);
    const { data } = await u.liker.sdk.from('post_likes').delete().eq('post_id', post).eq('user_id', u.liker.id).select(
      'user_id',
    );
    expect(data).toEqual([{ user_id: u.liker.id }]);
    const left =
      await asRoot`select user_id from public.post_likes where post_id = ${post} and user_id in (${u.liker.id}, ${u.banned.id})`;
    expect(left.map((row) => row.user_id)).toEqual([u.banned.id]);
  });
});
