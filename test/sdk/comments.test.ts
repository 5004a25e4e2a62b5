// public.comments through supabase-js: a comment is read where its post and its author are visible, written
// as oneself on a visible post, and deleted by its author, the post's author or an admin.
import { beforeAll, describe, expect, it } from 'vitest';
import { banDirectly, makeAdmin } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { anonSdk, refusal, rootBlock, rootComment, rootPost, type Sdk, type SdkUser, sdkUser } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('comments through supabase-js', () => {
  const u = {} as Record<string, SdkUser>;
  let post: string;
  let names: Record<string, string>;
  let bannedComment: string;
  let blockedComment: string;

  beforeAll(async () => {
    const labels = ['author', 'commenter', 'blocked', 'blocker', 'admin', 'banned', 'outsider'];
    (await Promise.all(labels.map((label) => sdkUser(label)))).forEach((user, i) => (u[labels[i]] = user));
    names = Object.fromEntries(labels.map((label) => [u[label].id, label]));
    await makeAdmin(u.admin);
    post = await rootPost(u.author, 'public');
    for (const name of ['commenter', 'blocked', 'banned']) await rootComment(post, u[name], `by ${name}`);
    // For the delete test: made before the block and the ban, as no account makes them after.
    const toDelete = await rootPost(u.author, 'public');
    bannedComment = await rootComment(toDelete, u.banned, 'banned, to delete');
    blockedComment = await rootComment(toDelete, u.blocked, 'blocked, to delete');
    await rootBlock(u.author, u.blocked); // after the comment: it stays, hidden from the author
    await rootBlock(u.blocker, u.author);
    await banDirectly(u.banned);
  });

  async function authors(client: Sdk): Promise<string[]> {
    const { data, error } = await client.from('comments').select('author_id').eq('post_id', post);
    expect(error).toBeNull();
    return data!.map((row) => names[row.author_id]).sort();
  }

  async function commentBy(name: string): Promise<string> {
    const [row] = await asRoot`select id from public.comments where post_id = ${post} and body = ${`by ${name}`}`;
    return row.id;
  }

  it('select: each reader sees the comments of authors they may see, on a post they may see', async () => {
    const seen: Record<string, string[]> = { anon: await authors(anonSdk()) };
    for (const name of ['author', 'commenter', 'blocked', 'blocker', 'banned', 'admin']) {
      seen[name] = await authors(u[name].sdk);
    }
    expect(seen).toEqual({
      anon: ['blocked', 'commenter'],
      author: ['commenter'],
      commenter: ['blocked', 'commenter'],
      blocked: [],
      blocker: [],
      banned: ['blocked', 'commenter'], // as anon: not its own comment
      admin: ['banned', 'blocked', 'commenter'],
    });
  });

  it('insert: one comments on a visible post as oneself; not on a hidden post, not as another, not anonymously', async () => {
    const { data, error } = await u.outsider.sdk.from('comments').insert({ post_id: post, body: 'hello' }).select()
      .single();
    expect(error).toBeNull();
    expect(data).toMatchObject({
      post_id: post,
      author_id: u.outsider.id,
      parent_id: null,
      body: 'hello',
      likes_count: 0,
    });

    const secret = await rootPost(u.author, 'private');
    const hidden = await u.outsider.sdk.from('comments').insert({ post_id: secret, body: 'peek' });
    expect(refusal(hidden)).toEqual({ status: 403, code: '42501', hint: null });
    const blocker = await u.blocker.sdk.from('comments').insert({ post_id: post, body: 'across a block' });
    expect(refusal(blocker)).toEqual({ status: 403, code: '42501', hint: null });
    const forged = await u.outsider.sdk.from('comments').insert({
      post_id: post,
      body: 'as author',
      author_id: u.author.id,
    });
    expect(refusal(forged)).toEqual({ status: 403, code: '42501', hint: null });
    const banned = await u.banned.sdk.from('comments').insert({ post_id: post, body: 'after my ban' });
    expect(refusal(banned)).toEqual({ status: 403, code: '42501', hint: null });
    const anon = await anonSdk().from('comments').insert({ post_id: post, body: 'anon' });
    expect(refusal(anon)).toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
    const empty = await u.outsider.sdk.from('comments').insert({ post_id: post, body: '' });
    expect(refusal(empty)).toEqual({ status: 400, code: '23514', hint: null });
  });

  it('insert: the body is trimmed as the API trims it, and one of spaces only is refused', async () => {
    const another = await rootPost(u.author, 'public');
    const { data } = await u.commenter.sdk.from('comments').insert({ post_id: another, body: ' padded ' }).select(
      'body',
    ).single();
    expect(data).toEqual({ body: 'padded' });
    const blank = await u.commenter.sdk.from('comments').insert({ post_id: another, body: '  ' });
    expect(refusal(blank)).toEqual({ status: 400, code: '23514', hint: null });
  });

  it('insert: a reply goes under a visible comment of the same post', async () => {
    const parent = await commentBy('commenter');
    const { data } = await u.outsider.sdk.from('comments').insert({ post_id: post, parent_id: parent, body: 'a reply' })
      .select('parent_id');
    expect(data).toEqual([{ parent_id: parent }]);
    const otherPost = await rootPost(u.outsider, 'public');
    const crossed = await u.outsider.sdk.from('comments').insert({
      post_id: otherPost,
      parent_id: parent,
      body: 'elsewhere',
    });
    expect(refusal(crossed)).toEqual({ status: 404, code: 'PT404', hint: 'comment_not_found' }); // not under this post
    // The author blocked the writer of this comment, so cannot see it, nor reply to it.
    const hiddenParent = await u.author.sdk.from('comments').insert({
      post_id: post,
      parent_id: await commentBy('blocked'),
      body: 're',
    });
    expect(refusal(hiddenParent)).toEqual({ status: 403, code: '42501', hint: null });
  });

  it("delete: a comment's author, the post's author and an admin delete it; others delete 0 rows", async () => {
    const ids = await Promise.all([1, 2, 3].map((n) => rootComment(post, u.commenter, `to delete ${n}`)));
    for (const name of ['outsider', 'blocker', 'blocked']) {
      const { data, error } = await u[name].sdk.from('comments').delete().eq('id', ids[0]).select('id');
      expect([name, error, data]).toEqual([name, null, []]);
    }
    const anon = await anonSdk().from('comments').delete().eq('id', ids[0]);
    expect(refusal(anon)).toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
    for (const [name, id] of [['commenter', ids[0]], ['author', ids[1]], ['admin', ids[2]]]) {
      const { data } = await u[name].sdk.from('comments').delete().eq('id', id).select('id');
      expect([name, data]).toEqual([name, [{ id }]]);
    }
    expect(await asRoot`select id from public.comments where id in ${asRoot(ids)}`).toEqual([]);
  });

  it('delete: the banned author no longer deletes its comment; a post author cannot reach a hidden one by the table', async () => {
    const own = await u.banned.sdk.from('comments').delete().eq('id', bannedComment).select('id');
    expect(own.data).toEqual([]);
    // The table's delete reads the row first, and the author cannot see the comment of someone they blocked:
    // public.delete_comment is the way (rpc-comments.test.ts).
    const hidden = await u.author.sdk.from('comments').delete().eq('id', blockedComment).select('id');
    expect(hidden.data).toEqual([]);
    const byAdmin = await u.admin.sdk.from('comments').delete().in('id', [bannedComment, blockedComment]).select('id');
    expect(byAdmin.data).toHaveLength(2);
  });
});
