// PostgREST's resource embedding as supabase-js users write it: a post with its author through the foreign key,
// its comments and likers, and an !inner filter on the author. Every embedded row passes its own table's policy.
import { beforeAll, describe, expect, it } from 'vitest';
import { asRoot } from '../helpers/db.ts';
import { anonSdk, refusal, rootBlock, rootComment, rootPost, type SdkUser, sdkUser } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('embedding through supabase-js', () => {
  let author: SdkUser;
  let fan: SdkUser;
  let shunned: SdkUser; // commented and liked, then the author blocked them
  let blocker: SdkUser;
  let post: string;

  beforeAll(async () => {
    [author, fan, shunned, blocker] = await Promise.all(
      ['author', 'fan', 'shunned', 'blocker'].map((label) => sdkUser(label)),
    );
    post = await rootPost(author, 'public', 'embedded');
    await rootComment(post, fan, 'by fan');
    await rootComment(post, shunned, 'by shunned');
    await asRoot`insert into public.post_likes (post_id, user_id) values (${post}, ${fan.id}), (${post}, ${shunned.id})`;
    await rootBlock(author, shunned);
    await rootBlock(blocker, author);
  });

  it('a post with its author profile, named through the foreign key', async () => {
    const { data, error } = await fan.sdk.from('posts')
      .select('id, body, author:profiles!posts_author_id_fkey(username, display_name)').eq('id', post).single();
    expect(error).toBeNull();
    expect(data).toEqual({ id: post, body: 'embedded', author: { username: author.username, display_name: '' } });
    // Across a block the post itself is not there to embed from.
    const hidden = await blocker.sdk.from('posts').select('id, author:profiles!posts_author_id_fkey(username)').eq(
      'id',
      post,
    );
    expect(hidden.data).toEqual([]);
  });

  it("'profiles' alone is ambiguous from posts (author, likers, mentions): 300 PGRST201 names the choices", async () => {
    const result = await fan.sdk.from('posts').select('id, profiles(username)').eq('id', post);
    expect(refusal(result)).toMatchObject({ status: 300, code: 'PGRST201' });
    expect(JSON.stringify(result.error?.details)).toContain('posts_author_id_fkey');
  });

  it('embedded comments and likers (through post_likes) leave out what the reader may not see', async () => {
    const query = (client: SdkUser['sdk']) =>
      client.from('posts')
        .select('id, comments(body), likers:profiles!post_likes(username)').eq('id', post).single();
    const byAnon = await query(anonSdk());
    expect(byAnon.error).toBeNull();
    expect(byAnon.data!.comments.map((c) => c.body).sort()).toEqual(['by fan', 'by shunned']);
    expect(byAnon.data!.likers.map((p) => p.username).sort()).toEqual([fan.username, shunned.username].sort());
    const byAuthor = await query(author.sdk);
    expect(byAuthor.data!.comments).toEqual([{ body: 'by fan' }]);
    expect(byAuthor.data!.likers).toEqual([{ username: fan.username }]);
  });

  it('!inner turns the embedded author into a filter on the posts', async () => {
    await rootPost(author, 'public', 'second');
    await rootPost(fan, 'public', 'not by author');
    const query = (client: SdkUser['sdk']) =>
      client.from('posts')
        .select('body, author:profiles!posts_author_id_fkey!inner(username)').eq('author.username', author.username)
        .order('body');
    const { data, error } = await query(fan.sdk);
    expect(error).toBeNull();
    expect(data).toEqual([
      { body: 'embedded', author: { username: author.username } },
      { body: 'second', author: { username: author.username } },
    ]);
    expect((await query(blocker.sdk)).data).toEqual([]);
  });

  it('insert(...).select() embeds too: the new post comes back with its author', async () => {
    const { data, error } = await fan.sdk.from('posts').insert({ body: 'fresh' })
      .select('body, author:profiles!posts_author_id_fkey(username)').single();
    expect(error).toBeNull();
    expect(data).toEqual({ body: 'fresh', author: { username: fan.username } });
    const anon = await anonSdk().from('posts').insert({ body: 'fresh' }).select('body').single();
    expect(refusal(anon)).toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
  });
});
