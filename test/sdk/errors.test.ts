// What a supabase-js client gets for each kind of refusal (supabase/ERRORS.md): PTxyz errors carry their HTTP
// status, the stable code in `hint` and a message for people; 42501 is 401 for anon and 403 for a user.
import { beforeAll, describe, expect, it } from 'vitest';
import { anonSdk, bannedSdkUser, rootComment, rootPost, type SdkUser, sdkUser, signedInSdk } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('error mapping through supabase-js', () => {
  let author: SdkUser;
  let reader: SdkUser;
  let post: string;
  let secret: string;

  beforeAll(async () => {
    [author, reader] = await Promise.all([sdkUser('author'), sdkUser('reader')]);
    post = await rootPost(author, 'public');
    secret = await rootPost(author, 'private');
  });

  /** Everything of the answer a client may branch on. */
  const answer = (result: { status: number; error: unknown; data: unknown }) => ({
    status: result.status,
    error: result.error,
    data: result.data,
  });

  it('PT404: a post hidden from the caller answers exactly as a missing one', async () => {
    const hidden = answer(await reader.sdk.rpc('get_post', { p_post_id: secret }));
    const missing = answer(await reader.sdk.rpc('get_post', { p_post_id: '00000000-0000-4000-8000-000000000000' }));
    const expected = {
      status: 404,
      data: null,
      error: { code: 'PT404', hint: 'post_not_found', message: 'Post not found', details: null },
    };
    expect(hidden).toEqual(expected);
    expect(missing).toEqual(expected);
    expect(answer(await author.sdk.rpc('get_post', { p_post_id: secret })).status).toBe(200);
  });

  it('PT403: a visible post edited by another is not_author', async () => {
    expect(answer(await reader.sdk.rpc('edit_post', { p_post_id: post, p_changes: { body: 'mine now' } }))).toEqual({
      status: 403,
      data: null,
      error: { code: 'PT403', hint: 'not_author', message: 'Only the author may change this post', details: null },
    });
  });

  it('PT409 and PT400: a second report, a limit out of range', async () => {
    expect((await reader.sdk.rpc('report_post', { p_post_id: post, p_reason: 'spam' })).error).toBeNull();
    expect(answer(await reader.sdk.rpc('report_post', { p_post_id: post, p_reason: 'spam' }))).toEqual({
      status: 409,
      data: null,
      error: {
        code: 'PT409',
        hint: 'already_reported',
        message: 'You already reported this; an admin will look at it',
        details: null,
      },
    });
    expect(answer(await reader.sdk.rpc('user_posts', { p_username: author.username, p_limit: 101 }))).toEqual({
      status: 400,
      data: null,
      error: { code: 'PT400', hint: 'invalid_limit', message: 'limit must be between 1 and 100', details: null },
    });
  });

  it('PT401: the live session of a banned account is unauthorized, however valid its token', async () => {
    const banned = await bannedSdkUser('banned');
    expect(answer(await banned.sdk.rpc('me'))).toEqual({
      status: 401,
      data: null,
      error: {
        code: 'PT401',
        hint: 'unauthorized',
        message: 'Sign in first (or your session has ended)',
        details: null,
      },
    });
  });

  it('PT401 after sign-out: the token kept by a client that signed out elsewhere is refused too', async () => {
    const user = await sdkUser('leaver');
    expect((await user.sdk.rpc('me')).status).toBe(200);
    const elsewhere = await signedInSdk(user);
    expect((await elsewhere.auth.signOut({ scope: 'global' })).error).toBeNull(); // ends every session of the account
    expect(answer(await user.sdk.rpc('me'))).toMatchObject({
      status: 401,
      error: { code: 'PT401', hint: 'unauthorized' },
    });
  });

  it('not signed in: anon calling a function or using a table granted to users only is 401 unauthorized in hint', async () => {
    const notSignedIn = {
      status: 401,
      data: null,
      error: { code: 'PT401', hint: 'unauthorized', message: 'Sign in first', details: null },
    };
    expect(answer(await anonSdk().rpc('me'))).toEqual(notSignedIn);
    expect(answer(await anonSdk().from('notifications').select('id'))).toEqual(notSignedIn);
    expect(answer(await anonSdk().from('post_likes').insert({ post_id: post }))).toEqual(notSignedIn);
    expect(answer(await anonSdk().from('posts').delete().eq('id', post))).toEqual(notSignedIn);
    // What anon may do, it still does; a signed-in user is not refused by it.
    expect(answer(await anonSdk().rpc('get_post', { p_post_id: post })).status).toBe(200);
    expect((await anonSdk().from('posts').select('id').eq('id', post)).data).toEqual([{ id: post }]);
    expect(answer(await reader.sdk.rpc('me')).status).toBe(200);
  });

  it('a counter written by hand is 403 counter_is_derived in hint, on its own row; other refused columns stay 42501', async () => {
    const own = await rootPost(reader, 'public');
    expect(answer(await reader.sdk.from('posts').update({ likes_count: 9 }).eq('id', own))).toMatchObject({
      status: 403,
      error: { code: 'PT403', hint: 'counter_is_derived' },
    });
    expect(answer(await reader.sdk.from('profiles').update({ followers_count: 1000 }).eq('id', reader.id)))
      .toMatchObject({
        status: 403,
        error: { code: 'PT403', hint: 'counter_is_derived' },
      });
    // Another's row is not the caller's to update: nothing changes, as for any column.
    expect(answer(await reader.sdk.from('posts').update({ likes_count: 9 }).eq('id', post).select('id'))).toMatchObject(
      { status: 200, data: [] },
    );
    // An editable column of one's own row still changes.
    expect(answer(await reader.sdk.from('posts').update({ body: 'edited' }).eq('id', own).select('body')))
      .toMatchObject({ data: [{ body: 'edited' }] });
    // A column granted to no client keeps Postgres's error: the grant is what guards it.
    expect(
      answer(
        await reader.sdk.from('ban_history').insert({
          element_type: 'post',
          element_id: post,
          action: 'ban',
          reason: 'x',
        }),
      ),
    ).toEqual({
      status: 403,
      data: null,
      error: { code: '42501', hint: null, message: 'permission denied for table ban_history', details: null },
    });
  });

  it('a second like of the same post or comment adds nothing and is no error; the first adds one', async () => {
    const likes = async () =>
      (await reader.sdk.from('post_likes').select('user_id').eq('post_id', post).eq('user_id', reader.id)).data;
    expect(answer(await reader.sdk.from('post_likes').insert({ post_id: post }).select('user_id'))).toMatchObject({
      status: 201,
      data: [{ user_id: reader.id }],
    });
    expect(answer(await reader.sdk.from('post_likes').insert({ post_id: post }).select('user_id'))).toMatchObject({
      status: 201,
      error: null,
      data: [],
    });
    expect(await likes()).toHaveLength(1);
    expect((await reader.sdk.rpc('like_post', { p_post_id: post, p_like: true })).error).toBeNull();
    expect(await likes()).toHaveLength(1);
    const comment = await rootComment(post, reader);
    expect((await author.sdk.from('comment_likes').insert({ comment_id: comment })).error).toBeNull();
    expect(answer(await author.sdk.from('comment_likes').insert({ comment_id: comment }).select('comment_id')))
      .toMatchObject({ status: 201, data: [] });
  });

  it("Postgres's own errors: 23505 is 409, 23514 is 400, an unknown function 404 (PGRST202) with a hint", async () => {
    const reported = await rootPost(author, 'public');
    expect(
      (await reader.sdk.from('reports').insert({ target_type: 'post', target_post_id: reported, reason: 'once' }))
        .error,
    ).toBeNull();
    const duplicate = await reader.sdk.from('reports').insert({
      target_type: 'post',
      target_post_id: reported,
      reason: 'twice',
    });
    expect([duplicate.status, duplicate.error?.code]).toEqual([409, '23505']);
    const tooLong = await reader.sdk.from('posts').insert({ body: 'x'.repeat(1001) });
    expect([tooLong.status, tooLong.error?.code]).toEqual([400, '23514']);
    const unknown = await reader.sdk.rpc('get_post' as 'get_comment', { p_comment_id: post });
    expect([unknown.status, unknown.error?.code]).toEqual([404, 'PGRST202']);
    expect(unknown.error?.hint).toBe('Perhaps you meant to call the function public.get_post(p_post_id)');
  });
});
