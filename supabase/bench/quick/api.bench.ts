// `npm run bench`: request latency of the facade over HTTP (gateway → Deno function → Postgres as the
// caller), on accounts with thousands of posts. Prints vitest's table (mean, p75, p99…); not a test.
// Keyset pagination should make a deep page cost what the first one does.
import { bench, describe } from 'vitest';
import { type Account, createAccount } from '../../../test/helpers/accounts.ts';
import { asRoot, rpc } from '../../../test/helpers/db.ts';
import { api } from '../../../test/helpers/http.ts';
import { authIsRunning } from '../../../test/helpers/stack.ts';

const postsPerAuthor = 5000;
const options = { time: 2000, warmupIterations: 5 };

async function seedPosts(authorId: string): Promise<void> {
  await asRoot`
    insert into public.posts (author_id, body, privacy)
    select ${authorId}, 'day ' || n, case when n % 5 = 0 then 'close_friends' else 'public' end::public.post_privacy
    from generate_series(1, ${postsPerAuthor}) n`;
}

interface Fixture {
  reader: Account;
  author: Account;
  shy: Account;
  postId: string;
  deepCursor: string;
}

/** Seeded once, before the benchmarks (vitest's bench mode runs no beforeAll). */
async function seed(): Promise<Fixture> {
  const [reader, author, shy] = await Promise.all([
    createAccount('reader'),
    createAccount('author'),
    createAccount('shy', { isPrivate: true }),
  ]);
  await Promise.all([seedPosts(author.id), seedPosts(shy.id)]);
  // As autovacuum would have by now: the planner needs statistics to pick index-ordered pages.
  await asRoot`analyze`;
  await rpc(reader, 'follow', { p_username: author.username });
  await rpc(reader, 'follow', { p_username: shy.username });
  await rpc(shy, 'respond_follow_request', { p_username: reader.username, p_accept: true });
  const likers = await Promise.all(Array.from({ length: 20 }, () => createAccount('liker')));
  const [{ id: postId }] = await asRoot`
    select id from public.posts where author_id = ${author.id} order by created_at desc, id desc limit 1`;
  await Promise.all(likers.map((liker) => rpc(liker, 'like_post', { p_post_id: postId, p_like: true })));
  const [{ cursor: deepCursor }] = await asRoot`
    select private.encode_cursor(created_at, id) as cursor from public.posts where author_id = ${author.id}
    order by created_at desc, id desc offset 4000 limit 1`;
  return { reader, author, shy, postId, deepCursor };
}

const f = authIsRunning ? await seed() : undefined;

describe.skipIf(!f)(`facade latency, authors with ${postsPerAuthor} posts`, () => {
  const { reader, author, shy, postId, deepCursor } = f ?? ({} as Fixture);

  bench('GET /:username (profile)', async () => {
    await api('GET', `/${author.username}`, { token: reader.accessToken });
  }, options);

  bench('GET /:username/posts, first page', async () => {
    await api('GET', `/${author.username}/posts`, { token: reader.accessToken });
  }, options);

  bench('GET /:username/posts, page after 4000 posts', async () => {
    await api('GET', `/${author.username}/posts?cursor=${deepCursor}`, { token: reader.accessToken });
  }, options);

  bench('GET /:username/posts of a private account, as a follower', async () => {
    await api('GET', `/${shy.username}/posts`, { token: reader.accessToken });
  }, options);

  bench('GET /post/:id', async () => {
    await api('GET', `/post/${postId}`, { token: reader.accessToken });
  }, options);

  bench('GET /post/:id/likes', async () => {
    await api('GET', `/post/${postId}/likes`, { token: reader.accessToken });
  }, options);

  bench('POST /post/:id/like (toggle)', async () => {
    await api('POST', `/post/${postId}/like`, { token: reader.accessToken });
  }, options);

  bench('GET /feed (two followed authors)', async () => {
    await api('GET', '/feed', { token: reader.accessToken });
  }, options);

  bench(`GET /search?type=posts, a word in all ${2 * postsPerAuthor} posts`, async () => {
    await api('GET', '/search?type=posts&q=day', { token: reader.accessToken });
  }, options);

  bench('GET /search?type=users', async () => {
    await api('GET', `/search?type=users&q=${author.username.slice(0, 6)}`, { token: reader.accessToken });
  }, options);

  bench('GET /notifications (20 likes)', async () => {
    await api('GET', '/notifications', { token: author.accessToken });
  }, options);

  bench('GET /:username/calendar (365 days)', async () => {
    await api('GET', `/${author.username}/calendar`, { token: reader.accessToken });
  }, options);
});
