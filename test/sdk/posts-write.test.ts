// Writing public.posts through supabase-js: insert as oneself, edit and delete one's own; every other
// writer changes 0 rows or is refused, but admins delete banned posts.
import { beforeAll, describe, expect, it } from 'vitest';
import { banDirectly, makeAdmin } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { anonSdk, refusal, rootBlock, rootPost, type SdkUser, sdkUser } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('writing posts through supabase-js', () => {
  let author: SdkUser;
  let stranger: SdkUser;
  let blocker: SdkUser; // blocks the author
  let blocked: SdkUser; // blocked by the author
  let admin: SdkUser;
  let banned: SdkUser;
  let bannedPost: string;

  beforeAll(async () => {
    [author, stranger, blocker, blocked, admin, banned] = await Promise.all(
      ['author', 'stranger', 'blocker', 'blocked', 'admin', 'banned'].map((label) => sdkUser(label)),
    );
    await makeAdmin(admin);
    await rootBlock(blocker, author);
    await rootBlock(author, blocked);
    bannedPost = await rootPost(banned, 'public', 'written before the ban');
    await banDirectly(banned);
  });

  async function bodyOf(id: string): Promise<string | undefined> {
    const [row] = await asRoot`select body from public.posts where id = ${id}`;
    return row?.body;
  }

  it('insert and update: the body is trimmed as the API trims it, and one of spaces only is refused', async () => {
    const { data } = await author.sdk.from('posts').insert({ body: '  trimmed  ' }).select('id, body').single();
    expect(data!.body).toBe('trimmed');
    const blank = await author.sdk.from('posts').insert({ body: '   ' });
    expect(refusal(blank)).toEqual({ status: 400, code: '23514', hint: null });
    const blanked = await author.sdk.from('posts').update({ body: '  ' }).eq('id', data!.id);
    expect(refusal(blanked)).toEqual({ status: 400, code: '23514', hint: null });
    expect(await bodyOf(data!.id)).toBe('trimmed');
  });

  it('insert: the author writes a post and gets it back with the day and author the database set', async () => {
    const { data, error, status } = await author.sdk.from('posts')
      .insert({ body: 'my day', privacy: 'close_friends', emotion: 70 }).select().single();
    expect(error).toBeNull();
    expect(status).toBe(201);
    expect(data).toMatchObject({
      author_id: author.id,
      body: 'my day',
      privacy: 'close_friends',
      emotion: 70,
      edited_at: null,
    });
    expect(data!.day).toBe(new Date().toISOString().slice(0, 10)); // the author's time zone is UTC

    const anon = await anonSdk().from('posts').insert({ body: 'anon day' });
    expect(refusal(anon)).toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
    const live = await banned.sdk.from('posts').insert({ body: 'after my ban' });
    expect(refusal(live)).toEqual({ status: 403, code: '42501', hint: null });
    expect(live.error?.message).toBe('new row violates row-level security policy for table "posts"');
  });

  it("insert: the author, day, counters and ban are the database's (403), the body's length its checks' (400)", async () => {
    for (const forged of [{ author_id: stranger.id }, { day: '2001-01-01' }, { likes_count: 9 }, { banned_at: null }]) {
      const result = await author.sdk.from('posts').insert({ body: 'forged', ...forged });
      expect([forged, refusal(result)]).toEqual([forged, { status: 403, code: '42501', hint: null }]);
    }
    const empty = await author.sdk.from('posts').insert({ body: '' });
    expect(refusal(empty)).toEqual({ status: 400, code: '23514', hint: null });
    const [{ count }] =
      await asRoot`select count(*)::int as count from public.posts where author_id = ${author.id} and body in ('forged', '')`;
    expect(count).toBe(0);
  });

  it('update: only the author edits (edited_at is stamped); a stranger, an admin, either side of a block and the banned change 0 rows', async () => {
    const post = await rootPost(author, 'public', 'first draft');
    const others = [['stranger', stranger.sdk], ['admin', admin.sdk], ['blocker', blocker.sdk], [
      'blocked',
      blocked.sdk,
    ], ['banned', banned.sdk]] as const;
    for (const [name, client] of others) {
      const { data, error } = await client.from('posts').update({ body: `edited by ${name}` }).eq('id', post).select(
        'id',
      );
      expect([name, error, data]).toEqual([name, null, []]);
    }
    const ownOld = await banned.sdk.from('posts').update({ body: 'rewritten after the ban' }).eq('id', bannedPost)
      .select('id');
    expect(ownOld.data).toEqual([]);
    expect(await bodyOf(bannedPost)).toBe('written before the ban');

    const { data } = await author.sdk.from('posts').update({ body: 'second draft' }).eq('id', post).select(
      'body, edited_at',
    ).single();
    expect(data?.body).toBe('second draft');
    expect(data?.edited_at).not.toBeNull();
  });

  it('update: a banned post is frozen for its author (403 post_banned)', async () => {
    const post = await rootPost(author, 'public', 'about to be banned');
    await asRoot`select moderation.ban_post(${post}, 'banned by a test')`;
    const refused = await author.sdk.from('posts').update({ body: 'cleaned up' }).eq('id', post);
    expect(refusal(refused)).toEqual({ status: 403, code: 'PT403', hint: 'post_banned' });
    expect(await bodyOf(post)).toBe('about to be banned');
    const unban = await author.sdk.from('posts').update({ banned_at: null }).eq('id', post);
    expect(refusal(unban)).toEqual({ status: 403, code: '42501', hint: null });
  });

  it('delete: the author deletes; others, and admins for a post that is not banned, delete 0 rows', async () => {
    const post = await rootPost(author, 'public', 'to delete');
    for (
      const [name, client] of [['stranger', stranger.sdk], ['admin', admin.sdk], ['blocker', blocker.sdk], [
        'blocked',
        blocked.sdk,
      ]] as const
    ) {
      const { data, error } = await client.from('posts').delete().eq('id', post).select('id');
      expect([name, error, data]).toEqual([name, null, []]);
    }
    const anon = await anonSdk().from('posts').delete().eq('id', post);
    expect(refusal(anon)).toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
    expect(await bodyOf(post)).toBe('to delete');
    const { data } = await author.sdk.from('posts').delete().eq('id', post).select('id');
    expect(data).toEqual([{ id: post }]);
    expect(await bodyOf(post)).toBeUndefined();
  });

  it('delete: an admin deletes a banned post; its author, banned since, no longer deletes their own', async () => {
    const own = await banned.sdk.from('posts').delete().eq('id', bannedPost).select('id');
    expect(own.data).toEqual([]);
    const post = await rootPost(stranger, 'public', 'banned, then deleted');
    await asRoot`select moderation.ban_post(${post}, 'banned by a test')`;
    const { data } = await admin.sdk.from('posts').delete().eq('id', post).select('id');
    expect(data).toEqual([{ id: post }]);
    expect(await bodyOf(post)).toBeUndefined();
    expect(await bodyOf(bannedPost)).toBe('written before the ban');
  });
});
