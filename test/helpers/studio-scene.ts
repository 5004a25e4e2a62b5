// The small network each catalogued Studio action (test/helpers/studio-actions.ts) acts on, made through the API
// functions as users would make it, and what the facade and supabase-js read of it: each value is read both ways,
// and the two must agree.
import { expect } from 'vitest';
import { type Account, createAccount } from './accounts.ts';
import { asRoot, rpc } from './db.ts';
import { api } from './http.ts';
import { rest } from './session-kinds.ts';

/**
 * The author's public post names @other and is liked and commented by the fan, who follows the author; the author
 * likes the fan's comment (which names @other too), keeps the fan as a close friend and mutes other; the blocker
 * blocks the fan; the fan reports other.
 */
export interface Scene {
  author: Account;
  fan: Account;
  other: Account;
  blocker: Account;
  post: string;
  comment: string;
  report: string;
  /** The author's notification of the fan's like. */
  notice: string;
}

export async function arrangeScene(): Promise<Scene> {
  const [author, fan, other, blocker] = await Promise.all(
    ['sceneauthor', 'scenefan', 'sceneother', 'sceneblocker'].map((label) => createAccount(label)),
  );
  const post = (await rpc(author, 'create_post', { p_body: `a day with @${other.username}` })).id;
  await rpc(fan, 'follow', { p_username: author.username });
  await rpc(fan, 'like_post', { p_post_id: post });
  const comment = (await rpc(fan, 'comment_post', { p_post_id: post, p_body: `hello @${other.username}` })).id;
  await rpc(author, 'like_comment', { p_comment_id: comment });
  await rpc(author, 'set_close_friend', { p_username: fan.username });
  await rpc(author, 'mute', { p_username: other.username });
  await rpc(blocker, 'block', { p_username: fan.username });
  const report = (await rpc(fan, 'report_user', { p_username: other.username, p_reason: 'spam' })).id;
  const [notice] = await asRoot`
    select id from public.notifications where recipient_id = ${author.id} and kind = 'post_like'`;
  return { author, fan, other, blocker, post, comment, report, notice: notice.id };
}

/** One value as the facade and supabase-js read it; they must agree. */
function agreed<T>(facade: T, sdk: T): T {
  expect(sdk).toEqual(facade);
  return facade;
}

/** A post's counts and text as `reader` reads them; null when the post is not there for them. */
export async function postSeen(post: string, reader: Account) {
  const facade = await api('GET', `/post/${post}`, { token: reader.accessToken });
  const { data } = await rest(reader.accessToken).from('posts').select('likes_count, comments_count, body, edited_at')
    .eq('id', post).maybeSingle();
  const fromFacade = facade.status === 200
    ? {
      likes_count: facade.body.likes_count,
      comments_count: facade.body.comments_count,
      body: facade.body.body,
      edited_at: facade.body.edited_at && new Date(facade.body.edited_at).toISOString(),
    }
    : null;
  return agreed(fromFacade, data && { ...data, edited_at: data.edited_at && new Date(data.edited_at).toISOString() });
}

/** An account's profile counts as anybody reads them; null when hidden. */
export async function profileSeen(account: Account) {
  const { data } = await rest(account.accessToken).from('profiles').select(
    'username, followers_count, following_count, posts_count',
  ).eq('id', account.id).maybeSingle();
  // By its name now, which an edit may have changed.
  const facade = await api('GET', `/${data?.username ?? account.username}`);
  const fromFacade = facade.status === 200
    ? {
      username: facade.body.username,
      followers_count: facade.body.followers_count,
      following_count: facade.body.following_count,
      posts_count: facade.body.posts_count,
    }
    : null;
  // A banned or deleted account's own token reads nothing; anybody's read decides.
  return data ? agreed(fromFacade, data) : fromFacade;
}

/**
 * Whether `reader` sees `account`'s profile, through both doors; 'signed out' when the reader's session has ended
 * (a ban, a deletion), which both doors refuse.
 */
export async function sees(reader: Account, account: Account): Promise<boolean | 'signed out'> {
  const [current] = await asRoot`select username from public.profiles where id = ${account.id}`;
  const facade = await api('GET', `/${current?.username ?? account.username}`, { token: reader.accessToken });
  if (facade.status === 401) {
    expect((await rest(reader.accessToken).rpc('me')).status).toBe(401);
    return 'signed out';
  }
  const { data } = await rest(reader.accessToken).from('profiles').select('id').eq('id', account.id);
  return agreed(facade.status === 200, (data ?? []).length === 1);
}

/** The ids of `reader`'s notifications, newest first. */
export async function noticesOf(reader: Account): Promise<string[] | null> {
  const facade = await api('GET', '/notifications?limit=100', { token: reader.accessToken });
  const { data } = await rest(reader.accessToken).from('notifications').select('id').order('created_at', {
    ascending: false,
  }).order('id', { ascending: false });
  if (facade.status !== 200) return null;
  return agreed(
    facade.body.items.map((item: { id: string }) => item.id).sort(),
    (data ?? []).map((row) => row.id).sort(),
  );
}

/** The ids of the posts in `reader`'s feed. */
export async function feedOf(reader: Account): Promise<string[] | null> {
  const facade = await api('GET', '/feed', { token: reader.accessToken });
  const { data } = await rest(reader.accessToken).rpc('feed');
  if (facade.status !== 200) return null;
  const ids = (page: { items: { id: string }[] }) => page.items.map((item) => item.id);
  return agreed(ids(facade.body), ids(data as { items: { id: string }[] }));
}

/** Everything of the scene the facade and supabase-js read, in one value to compare before and after an action. */
export async function view(s: Scene) {
  return {
    post: await postSeen(s.post, s.author),
    author: await profileSeen(s.author),
    fan: await profileSeen(s.fan),
    other: await profileSeen(s.other),
    fanSeesBlocker: await sees(s.fan, s.blocker),
    fanSeesAuthor: await sees(s.fan, s.author),
    notices: await noticesOf(s.author),
    feed: await feedOf(s.fan),
  };
}

export type View = Awaited<ReturnType<typeof view>>;

/** What moderation.integrity_report() finds about the scene's elements: nothing, when the rules held. */
export function brokenAround(s: Scene) {
  const ids = [s.author.id, s.fan.id, s.other.id, s.blocker.id, s.post, s.comment, s.report, s.notice];
  return asRoot`select problem, element_type, element_id, detail from moderation.integrity_report()
    where element_id::text = any(${ids})`;
}
