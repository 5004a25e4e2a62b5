// Newer-than reads (docs/PRODUCT.md, "Lists"): the feed, a user's posts, a post's comments and the notifications
// name their newest item (newer_cursor); asked later with it (p_newer_than), each answers only what has come
// since, newest first, in pages as usual, and what the caller may see, as always.
import { describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.ts';
import { errorOf, rpc } from '../helpers/db.ts';
import { authIsRunning } from '../helpers/stack.ts';

const bodies = (page: { items: { body: string }[] }) => page.items.map((item) => item.body);

describe.skipIf(!authIsRunning)('newer-than reads', () => {
  it("the feed and a user's posts: only what came since, newest first, paged down to the point", async () => {
    const [reader, author, stranger] = await Promise.all(
      ['reader', 'author', 'stranger'].map((label) => createAccount(label)),
    );
    await rpc(reader, 'follow', { p_username: author.username });
    await rpc(author, 'create_post', { p_body: 'old 1' });
    await rpc(author, 'create_post', { p_body: 'old 2' });
    const feed = await rpc(reader, 'feed');
    const posts = await rpc(stranger, 'user_posts', { p_username: author.username });
    expect([bodies(feed), bodies(posts)]).toEqual([['old 2', 'old 1'], ['old 2', 'old 1']]);
    expect(feed.newer_cursor).toEqual(expect.any(String));

    for (const body of ['new 1', 'new 2', 'new 3']) await rpc(author, 'create_post', { p_body: body });
    await rpc(author, 'create_post', { p_body: 'only me', p_privacy: 'private' });
    const newer = await rpc(reader, 'feed', { p_newer_than: feed.newer_cursor, p_limit: 2 });
    expect(bodies(newer)).toEqual(['new 3', 'new 2']);
    const rest = await rpc(reader, 'feed', {
      p_newer_than: feed.newer_cursor,
      p_cursor: newer.next_cursor,
      p_limit: 2,
    });
    expect([bodies(rest), rest.next_cursor]).toEqual([['new 1'], null]);
    expect(bodies(await rpc(stranger, 'user_posts', { p_username: author.username, p_newer_than: posts.newer_cursor })))
      .toEqual(['new 3', 'new 2', 'new 1']);

    const nothing = await rpc(reader, 'feed', { p_newer_than: newer.newer_cursor });
    expect([nothing.items, nothing.newer_cursor, nothing.next_cursor]).toEqual([[], null, null]);
  });

  it("a post's comments and the notifications", async () => {
    const [author, fan] = await Promise.all([createAccount('author'), createAccount('fan')]);
    const post = await rpc(author, 'create_post', { p_body: 'a day' });
    await rpc(fan, 'comment_post', { p_post_id: post.id, p_body: 'first' });
    const comments = await rpc(author, 'post_comments', { p_post_id: post.id });
    const notices = await rpc(author, 'notifications');
    expect(notices.items.map((n: { kind: string }) => n.kind)).toEqual(['comment']);

    await rpc(fan, 'comment_post', { p_post_id: post.id, p_body: 'second' });
    await rpc(fan, 'like_post', { p_post_id: post.id });
    expect(bodies(await rpc(author, 'post_comments', { p_post_id: post.id, p_newer_than: comments.newer_cursor })))
      .toEqual(['second']);
    const newNotices = await rpc(author, 'notifications', { p_newer_than: notices.newer_cursor });
    expect(newNotices.items.map((n: { kind: string }) => n.kind)).toEqual(['post_like', 'comment']);
  });

  it('refuses a newer_than this API did not make, as a bad cursor', async () => {
    const reader = await createAccount('reader');
    expect(await errorOf(rpc(reader, 'feed', { p_newer_than: 'not-a-cursor' }))).toMatchObject({
      code: 'PT400',
      hint: 'invalid_cursor',
    });
  });
});
