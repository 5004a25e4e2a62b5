// rpc() of the post functions: create_post, get_post, edit_post, delete_post, user_posts, posts_by_day,
// calendar, like_post, post_likes, report_post. Each: one call allowed, one denied.
import { beforeAll, describe, expect, it } from 'vitest';
import { makeAdmin } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import {
  anonSdk,
  bannedSdkUser,
  refusal,
  rootBlock,
  rootFollow,
  rootPost,
  type SdkUser,
  sdkUser,
} from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

const today = () => new Date().toISOString().slice(0, 10); // the authors' time zone is UTC

describe.skipIf(!authIsRunning)('rpc: posts', () => {
  let author: SdkUser;
  let priv: SdkUser; // a private account
  let follower: SdkUser; // follows priv
  let stranger: SdkUser;
  let blocker: SdkUser; // blocks author
  let admin: SdkUser;
  let banned: SdkUser;
  let open: string;
  let secret: string;
  let day: string; // the day of both posts

  beforeAll(async () => {
    [author, follower, stranger, blocker, admin] = await Promise.all(
      ['author', 'follower', 'stranger', 'blocker', 'admin'].map((label) => sdkUser(label)),
    );
    priv = await sdkUser('priv', { isPrivate: true });
    banned = await bannedSdkUser('banned');
    await makeAdmin(admin);
    await rootFollow(follower, priv);
    await rootBlock(blocker, author);
    open = await rootPost(author, 'public', 'open');
    secret = await rootPost(author, 'private', 'secret');
    await rootPost(priv, 'public', 'for followers');
    [{ day }] = await asRoot`select day::text from public.posts where id = ${open}`;
  });

  const bodies = (page: unknown) => (page as { items: { body: string }[] }).items.map((item) => item.body);
  const notFound = { status: 404, code: 'PT404', hint: 'post_not_found' };

  it('create_post: the caller writes a post; anon is refused, a banned session unauthorized, a URL as media 400', async () => {
    const created = await author.sdk.rpc('create_post', {
      p_body: ' a new day ',
      p_emotion: 80,
      p_privacy: 'close_friends',
    });
    expect(created.error).toBeNull();
    expect(created.data).toMatchObject({
      body: 'a new day',
      emotion: 80,
      privacy: 'close_friends',
      day: today(),
      author: { id: author.id },
    });
    expect(refusal(await anonSdk().rpc('create_post', { p_body: 'anon' }))).toEqual({
      status: 401,
      code: 'PT401',
      hint: 'unauthorized',
    });
    expect(refusal(await banned.sdk.rpc('create_post', { p_body: 'banned' }))).toEqual({
      status: 401,
      code: 'PT401',
      hint: 'unauthorized',
    });
    expect(refusal(await author.sdk.rpc('create_post', { p_body: 'x', p_media: ['https://elsewhere.example/a.png'] })))
      .toEqual({ status: 400, code: '23514', hint: null });
  });

  it('get_post: a visible post for anyone, a private one for its author and admins; 404 for others and across a block', async () => {
    expect((await anonSdk().rpc('get_post', { p_post_id: open })).data).toMatchObject({ id: open, viewer: null });
    expect((await admin.sdk.rpc('get_post', { p_post_id: secret })).data).toMatchObject({
      id: secret,
      privacy: 'private',
    });
    expect((await author.sdk.rpc('get_post', { p_post_id: secret })).data).toMatchObject({
      viewer: { is_author: true },
    });
    expect(refusal(await stranger.sdk.rpc('get_post', { p_post_id: secret }))).toEqual(notFound);
    expect(refusal(await blocker.sdk.rpc('get_post', { p_post_id: open }))).toEqual(notFound);
  });

  it('edit_post: the author edits; another is 403 not_author on a post they see, 404 on one they do not', async () => {
    const post = await rootPost(author, 'public', 'draft');
    const edited = await author.sdk.rpc('edit_post', { p_post_id: post, p_changes: { body: 'final', emotion: null } });
    expect(edited.error).toBeNull();
    expect(edited.data).toMatchObject({ body: 'final', emotion: null });
    expect((edited.data as { edited_at: string | null }).edited_at).not.toBeNull();
    expect(refusal(await stranger.sdk.rpc('edit_post', { p_post_id: post, p_changes: { body: 'mine' } })))
      .toEqual({ status: 403, code: 'PT403', hint: 'not_author' });
    expect(refusal(await stranger.sdk.rpc('edit_post', { p_post_id: secret, p_changes: { body: 'mine' } }))).toEqual(
      notFound,
    );
    expect(refusal(await author.sdk.rpc('edit_post', { p_post_id: post, p_changes: { author_id: stranger.id } })))
      .toEqual({ status: 400, code: 'PT400', hint: 'invalid_changes' });
  });

  it('delete_post: the author deletes; another (an admin too) is 403 not_author', async () => {
    const post = await rootPost(author, 'public', 'to delete');
    expect(refusal(await stranger.sdk.rpc('delete_post', { p_post_id: post }))).toEqual({
      status: 403,
      code: 'PT403',
      hint: 'not_author',
    });
    expect(refusal(await admin.sdk.rpc('delete_post', { p_post_id: post }))).toEqual({
      status: 403,
      code: 'PT403',
      hint: 'not_author',
    });
    const deleted = await author.sdk.rpc('delete_post', { p_post_id: post });
    expect([deleted.error, deleted.data]).toEqual([null, { deleted: true, id: post }]);
    expect(refusal(await author.sdk.rpc('get_post', { p_post_id: post }))).toEqual(notFound);
  });

  it("user_posts: a public account's visible posts for anyone; a private account's for followers (403 otherwise)", async () => {
    expect(bodies((await anonSdk().rpc('user_posts', { p_username: author.username })).data)).toContain('open');
    expect(bodies((await anonSdk().rpc('user_posts', { p_username: author.username })).data)).not.toContain('secret');
    expect(bodies((await follower.sdk.rpc('user_posts', { p_username: priv.username })).data)).toEqual([
      'for followers',
    ]);
    expect(refusal(await stranger.sdk.rpc('user_posts', { p_username: priv.username }))).toEqual({
      status: 403,
      code: 'PT403',
      hint: 'private_account',
    });
    expect(refusal(await blocker.sdk.rpc('user_posts', { p_username: author.username }))).toEqual({
      status: 404,
      code: 'PT404',
      hint: 'user_not_found',
    });
  });

  it("posts_by_day: one's own day without a username; anon must name one (401), a private account's is 403", async () => {
    const own = await author.sdk.rpc('posts_by_day', { p_day: day });
    expect(own.error).toBeNull();
    expect(bodies(own.data)).toEqual(expect.arrayContaining(['open', 'secret']));
    expect(bodies((await anonSdk().rpc('posts_by_day', { p_day: day, p_username: author.username })).data)).not
      .toContain('secret');
    expect(refusal(await anonSdk().rpc('posts_by_day', { p_day: day }))).toEqual({
      status: 401,
      code: 'PT401',
      hint: 'unauthorized',
    });
    expect(refusal(await stranger.sdk.rpc('posts_by_day', { p_day: day, p_username: priv.username })))
      .toEqual({ status: 403, code: 'PT403', hint: 'private_account' });
  });

  it('calendar: counts the posts the viewer may see per day; a private account is 403, a reversed range 400', async () => {
    const countToday = async (client: SdkUser['sdk']) =>
      ((await client.rpc('calendar', { p_username: author.username })).data as {
        days: { day: string; count: number }[];
      })
        .days.find((d) => d.day === day)?.count;
    const ownCount = await countToday(author.sdk);
    expect(await countToday(anonSdk())).toBeLessThan(ownCount!); // not the private posts
    expect(refusal(await stranger.sdk.rpc('calendar', { p_username: priv.username }))).toEqual({
      status: 403,
      code: 'PT403',
      hint: 'private_account',
    });
    expect(refusal(await author.sdk.rpc('calendar', { p_from: '2026-02-01', p_to: '2026-01-01' })))
      .toEqual({ status: 400, code: 'PT400', hint: 'invalid_range' });
  });

  it('like_post: a visible post is liked (fresh counts back); a hidden one is 404, also across a block', async () => {
    const post = await rootPost(author, 'public', 'to like');
    const liked = await stranger.sdk.rpc('like_post', { p_post_id: post, p_like: true });
    expect(liked.error).toBeNull();
    expect(liked.data).toMatchObject({ likes_count: 1, viewer: { liked: true, is_author: false } });
    expect(refusal(await stranger.sdk.rpc('like_post', { p_post_id: secret }))).toEqual(notFound);
    expect(refusal(await blocker.sdk.rpc('like_post', { p_post_id: post }))).toEqual(notFound);
    expect(refusal(await anonSdk().rpc('like_post', { p_post_id: post }))).toEqual({
      status: 401,
      code: 'PT401',
      hint: 'unauthorized',
    });
  });

  it('post_likes: the likers of a visible post for anyone; a hidden post is 404', async () => {
    const post = await rootPost(author, 'public', 'liked');
    await follower.sdk.rpc('like_post', { p_post_id: post, p_like: true });
    const likers = await anonSdk().rpc('post_likes', { p_post_id: post });
    expect(likers.error).toBeNull();
    expect((likers.data as { items: { username: string }[] }).items.map((i) => i.username)).toEqual([
      follower.username,
    ]);
    expect(refusal(await anonSdk().rpc('post_likes', { p_post_id: secret }))).toEqual(notFound);
  });

  it('report_post: a visible post once (409 after); a hidden one is 404', async () => {
    const reporter = await sdkUser('reporter');
    const filed = await reporter.sdk.rpc('report_post', { p_post_id: open, p_reason: 'spam' });
    expect([filed.error, (filed.data as { target_type: string }).target_type]).toEqual([null, 'post']);
    expect(refusal(await reporter.sdk.rpc('report_post', { p_post_id: open, p_reason: 'spam' }))).toEqual({
      status: 409,
      code: 'PT409',
      hint: 'already_reported',
    });
    expect(refusal(await reporter.sdk.rpc('report_post', { p_post_id: secret, p_reason: 'spam' }))).toEqual(notFound);
  });
});
