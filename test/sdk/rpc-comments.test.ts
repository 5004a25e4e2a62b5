// rpc() of the comment functions: comment_post, reply_comment, get_comment, post_comments, comment_replies,
// like_comment, comment_likes, delete_comment, report_comment. Each: one call allowed, one denied.
import { beforeAll, describe, expect, it } from 'vitest';
import { makeAdmin } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { anonSdk, refusal, rootBlock, rootComment, rootPost, type SdkUser, sdkUser } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('rpc: comments', () => {
  let author: SdkUser; // of the posts
  let commenter: SdkUser;
  let stranger: SdkUser;
  let shunned: SdkUser; // commented, then the author blocked them
  let blocker: SdkUser; // blocks the author
  let admin: SdkUser;
  let open: string;
  let secret: string;
  let comment: string; // commenter's, on open
  let reply: string; // stranger's, to comment
  let shunnedComment: string;
  let shunnedToDelete: string; // likewise, for the delete test
  let secretComment: string; // the author's, on secret

  beforeAll(async () => {
    [author, commenter, stranger, shunned, blocker, admin] = await Promise.all(
      ['author', 'commenter', 'stranger', 'shunned', 'blocker', 'admin'].map((label) => sdkUser(label)),
    );
    await makeAdmin(admin);
    open = await rootPost(author, 'public');
    secret = await rootPost(author, 'private');
    comment = await rootComment(open, commenter, 'first');
    reply = await rootComment(open, stranger, 'a reply', comment);
    shunnedComment = await rootComment(open, shunned, 'shunned');
    shunnedToDelete = await rootComment(open, shunned, 'hidden');
    secretComment = await rootComment(secret, author, 'note to self');
    await rootBlock(author, shunned);
    await rootBlock(blocker, author);
  });

  const bodies = (page: unknown) => (page as { items: { body: string }[] }).items.map((item) => item.body).sort();
  const postNotFound = { status: 404, code: 'PT404', hint: 'post_not_found' };
  const commentNotFound = { status: 404, code: 'PT404', hint: 'comment_not_found' };

  it('comment_post: on a visible post; a hidden post is 404, also across a block; an empty body 400', async () => {
    const made = await stranger.sdk.rpc('comment_post', { p_post_id: open, p_body: 'hello' });
    expect(made.error).toBeNull();
    expect(made.data).toMatchObject({ post_id: open, parent_id: null, body: 'hello', author: { id: stranger.id } });
    expect(refusal(await stranger.sdk.rpc('comment_post', { p_post_id: secret, p_body: 'peek' }))).toEqual(
      postNotFound,
    );
    expect(refusal(await blocker.sdk.rpc('comment_post', { p_post_id: open, p_body: 'hi' }))).toEqual(postNotFound);
    expect(refusal(await stranger.sdk.rpc('comment_post', { p_post_id: open, p_body: '   ' }))).toEqual({
      status: 400,
      code: '23514',
      hint: null,
    });
  });

  it('reply_comment: to a visible comment; a comment hidden from the caller is 404', async () => {
    const made = await stranger.sdk.rpc('reply_comment', { p_comment_id: comment, p_body: 'agreed' });
    expect(made.error).toBeNull();
    expect(made.data).toMatchObject({ post_id: open, parent_id: comment, body: 'agreed' });
    expect(refusal(await stranger.sdk.rpc('reply_comment', { p_comment_id: secretComment, p_body: 'x' }))).toEqual(
      commentNotFound,
    );
    expect(refusal(await author.sdk.rpc('reply_comment', { p_comment_id: shunnedComment, p_body: 'x' }))).toEqual(
      commentNotFound,
    );
  });

  it('get_comment: a visible comment for anyone; 404 on a hidden post and across a block', async () => {
    expect((await anonSdk().rpc('get_comment', { p_comment_id: comment })).data).toMatchObject({
      id: comment,
      body: 'first',
      viewer: null,
    });
    expect((await admin.sdk.rpc('get_comment', { p_comment_id: secretComment })).data).toMatchObject({
      id: secretComment,
    });
    expect(refusal(await anonSdk().rpc('get_comment', { p_comment_id: secretComment }))).toEqual(commentNotFound);
    expect(refusal(await author.sdk.rpc('get_comment', { p_comment_id: shunnedComment }))).toEqual(commentNotFound);
  });

  it('post_comments: the top-level comments a reader may see; a hidden post is 404', async () => {
    const byAnon = await anonSdk().rpc('post_comments', { p_post_id: open });
    expect(byAnon.error).toBeNull();
    expect(bodies(byAnon.data)).toEqual(expect.arrayContaining(['first', 'shunned']));
    expect(bodies((await author.sdk.rpc('post_comments', { p_post_id: open })).data)).not.toContain('shunned');
    expect(refusal(await stranger.sdk.rpc('post_comments', { p_post_id: secret }))).toEqual(postNotFound);
  });

  it('comment_replies: the replies to a visible comment; a hidden comment is 404', async () => {
    const replies = await anonSdk().rpc('comment_replies', { p_comment_id: comment });
    expect(replies.error).toBeNull();
    expect(bodies(replies.data)).toContain('a reply');
    expect(refusal(await anonSdk().rpc('comment_replies', { p_comment_id: secretComment }))).toEqual(commentNotFound);
  });

  it('like_comment: a visible comment is liked; across a block it is 404, anonymously 401', async () => {
    const liked = await stranger.sdk.rpc('like_comment', { p_comment_id: reply, p_like: true });
    expect(liked.error).toBeNull();
    expect(liked.data).toMatchObject({ id: reply, likes_count: 1, viewer: { liked: true, can_delete: true } });
    expect(refusal(await blocker.sdk.rpc('like_comment', { p_comment_id: comment }))).toEqual(commentNotFound);
    expect(refusal(await anonSdk().rpc('like_comment', { p_comment_id: comment }))).toEqual({
      status: 401,
      code: 'PT401',
      hint: 'unauthorized',
    });
  });

  it('comment_likes: the likers of a visible comment; a hidden comment is 404', async () => {
    await commenter.sdk.rpc('like_comment', { p_comment_id: comment, p_like: true });
    const likers = await anonSdk().rpc('comment_likes', { p_comment_id: comment });
    expect(likers.error).toBeNull();
    expect((likers.data as { items: { username: string }[] }).items.map((i) => i.username)).toEqual([
      commenter.username,
    ]);
    expect(refusal(await stranger.sdk.rpc('comment_likes', { p_comment_id: secretComment }))).toEqual(commentNotFound);
  });

  it("delete_comment: its author, the post's author (even one hidden from them) and an admin; another is 403", async () => {
    const hidden = shunnedToDelete; // written before the block: no account comments across one
    const [own, any] = await Promise.all([rootComment(open, commenter, 'own'), rootComment(open, stranger, 'any')]);
    expect(refusal(await stranger.sdk.rpc('delete_comment', { p_comment_id: own }))).toEqual({
      status: 403,
      code: 'PT403',
      hint: 'forbidden',
    });
    expect(refusal(await stranger.sdk.rpc('delete_comment', { p_comment_id: secretComment }))).toEqual(commentNotFound);
    for (const [client, id] of [[commenter.sdk, own], [author.sdk, hidden], [admin.sdk, any]] as const) {
      const deleted = await client.rpc('delete_comment', { p_comment_id: id });
      expect([deleted.error, deleted.data]).toEqual([null, { deleted: true, id }]);
    }
    expect(await asRoot`select id from public.comments where id in (${own}, ${hidden}, ${any})`).toEqual([]);
  });

  it('report_comment: a visible comment once (409 after); a hidden one is 404', async () => {
    const reporter = await sdkUser('reporter');
    const filed = await reporter.sdk.rpc('report_comment', { p_comment_id: comment, p_reason: 'rude' });
    expect([filed.error, (filed.data as { target_type: string }).target_type]).toEqual([null, 'comment']);
    expect(refusal(await reporter.sdk.rpc('report_comment', { p_comment_id: comment, p_reason: 'rude' })))
      .toEqual({ status: 409, code: 'PT409', hint: 'already_reported' });
    expect(refusal(await reporter.sdk.rpc('report_comment', { p_comment_id: secretComment, p_reason: 'x' }))).toEqual(
      commentNotFound,
    );
  });
});
