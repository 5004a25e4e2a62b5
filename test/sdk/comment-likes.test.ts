// public.comment_likes through supabase-js: likes of a visible comment by visible accounts are readable; a
// like is written only as oneself on a comment one may see, and taken back only by its liker.
import { beforeAll, describe, expect, it } from 'vitest';
import { banDirectly, makeAdmin } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { anonSdk, refusal, rootBlock, rootComment, rootPost, type Sdk, type SdkUser, sdkUser } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('comment likes through supabase-js', () => {
  const u = {} as Record<string, SdkUser>;
  let comment: string;
  let names: Record<string, string>;

  beforeAll(async () => {
    const labels = ['author', 'commenter', 'liker', 'blocked', 'blocker', 'admin', 'banned', 'fresh'];
    (await Promise.all(labels.map((label) => sdkUser(label)))).forEach((user, i) => (u[labels[i]] = user));
    names = Object.fromEntries(labels.map((label) => [u[label].id, label]));
    await makeAdmin(u.admin);
    comment = await rootComment(await rootPost(u.author, 'public'), u.commenter);
    await asRoot`insert into public.comment_likes (comment_id, user_id) values
      (${comment}, ${u.liker.id}), (${comment}, ${u.blocked.id}), (${comment}, ${u.banned.id})`;
    await rootBlock(u.commenter, u.blocked);
    await rootBlock(u.blocker, u.commenter);
    await banDirectly(u.banned);
  });

  async function likers(client: Sdk): Promise<string[]> {
    const { data, error } = await client.from('comment_likes').select('user_id').eq('comment_id', comment);
    expect(error).toBeNull();
    return data!.map((row) => names[row.user_id]).sort();
  }

  it('select: each reader sees the likes by accounts they may see, of a comment they may see', async () => {
    const seen: Record<string, string[]> = { anon: await likers(anonSdk()) };
    for (const name of ['commenter', 'liker', 'blocked', 'blocker', 'banned', 'admin']) {
      seen[name] = await likers(u[name].sdk);
    }
    expect(seen).toEqual({
      anon: ['blocked', 'liker'],
      commenter: ['liker'],
      liker: ['blocked', 'liker'],
      blocked: [], // the comment's author blocked them: the comment is invisible to them
      blocker: [],
      banned: ['blocked', 'liker'],
      admin: ['banned', 'blocked', 'liker'],
    });
  });

  it('insert: one likes a visible comment as oneself; not as another, across a block, banned or anonymously', async () => {
    const { data, error } = await u.fresh.sdk.from('comment_likes').insert({ comment_id: comment }).select().single();
    expect(error).toBeNull();
    expect(data).toMatchObject({ comment_id: comment, user_id: u.fresh.id });

    const forged = await u.liker.sdk.from('comment_likes').insert({ comment_id: comment, user_id: u.author.id });
    expect(refusal(forged)).toEqual({ status: 403, code: '42501', hint: null });
    for (const name of ['blocked', 'blocker', 'banned']) {
      const result = await u[name].sdk.from('comment_likes').insert({ comment_id: comment });
      expect([name, refusal(result)]).toEqual([name, { status: 403, code: '42501', hint: null }]);
    }
    const anon = await anonSdk().from('comment_likes').insert({ comment_id: comment });
    expect(refusal(anon)).toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
    const onHiddenPost = await rootComment(await rootPost(u.author, 'private'), u.author);
    const hidden = await u.fresh.sdk.from('comment_likes').insert({ comment_id: onHiddenPost });
    expect(refusal(hidden)).toEqual({ status: 403, code: '42501', hint: null });
  });

  it('delete: only the liker takes a like back; the commenter and an admin delete 0 rows', async () => {
    for (const name of ['commenter', 'admin']) {
      const { data, error } = await u[name].sdk.from('comment_likes').delete().eq('comment_id', comment).eq(
        'user_id',
        u.liker.id,
      ).select();
      expect([name, error, data]).toEqual([name, null, []]);
    }
    const banned = await u.banned.sdk.from('comment_likes').delete().eq('user_id', u.banned.id).select();
    expect(banned.data).toEqual([]);
    const { data } = await u.liker.sdk.from('comment_likes').delete().eq('comment_id', comment).eq(
      'user_id',
      u.liker.id,
    ).select('user_id');
    expect(data).toEqual([{ user_id: u.liker.id }]);
    const left =
      await asRoot`select user_id from public.comment_likes where comment_id = ${comment} and user_id in (${u.liker.id}, ${u.banned.id})`;
    expect(left.map((row) => row.user_id)).toEqual([u.banned.id]);
  });
});
