// The soak's traffic: what a social app's users do in an hour, as operations drawn by weight. Each operation
// is the requests a client app sends for one thing a person does, through the facade (/functions/v1/api), as
// supabase-js would through PostgREST (/rest/v1, the anon key and the user's token), and through Auth
// (/auth/v1/token). Every write is undone by the same person right after (a like then an unlike, a comment
// then its deletion, a post then its deletion, a follow then an unfollow), so an hour leaves the hot tables
// about as large as it found them: what grows is dead tuples, which is what the soak watches.
import { type Driver, driverPassword } from './drivers.ts';

export interface Answer {
  status: number;
  // deno-lint-ignore no-explicit-any
  body: any;
}

/** One load account's client: each request it sends is timed and counted under `op`. */
export interface Client {
  /** The account; its tokens change as it refreshes and signs in again. */
  user: Driver;
  facade(op: string, method: string, path: string, body?: unknown): Promise<Answer>;
  /** As supabase-js sends it: apikey, the user's token, and `prefer` (return=minimal|representation). */
  rest(op: string, method: string, path: string, body?: unknown, prefer?: string): Promise<Answer>;
  /** Auth's own endpoints, with the anon key; `token` for those that act on a session (logout). */
  auth(op: string, path: string, body?: unknown, token?: string): Promise<Answer>;
}

/** What the operations read and write: public posts and public accounts of the seeded crowd, and the hot ones. */
export interface Targets {
  usernames: string[];
  posts: Array<{ id: string; authorId: string; author: string }>;
  /** The celebrity, the hot author and their posts: a real day's reads are skewed towards a few accounts. */
  hotUsernames: string[];
  hotPosts: Array<{ id: string; authorId: string; author: string }>;
  /** The load accounts themselves, which also follow one another (so their notifications are not empty). */
  loadUsernames: string[];
  /** Whom each load account follows for its feed (by username): never followed and unfollowed by the load. */
  following: Map<string, Set<string>>;
}

export interface Operation {
  name: string;
  weight: number;
  run(c: Client, t: Targets): Promise<void>;
}

const oneOf = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)];
/** One read in ten goes to the hot accounts and posts. */
const hotShare = 0.1;
const somePost = (t: Targets) => oneOf(Math.random() < hotShare ? t.hotPosts : t.posts);
const someUsername = (t: Targets) => oneOf(Math.random() < hotShare ? t.hotUsernames : t.usernames);

const postWithComments = (id: string) =>
  `/posts?select=id,body,emotion,day,created_at,likes_count,comments_count,` +
  `author:profiles!author_id(username,display_name),comments(id,body,created_at)` +
  `&id=eq.${id}&comments.order=created_at.desc&comments.limit=20`;

/**
 * The weights, per 100 operations drawn. Reads dominate (94 of 100: about 89 % of the requests, since each
 * write is two), as they do in any feed-based app: mostly feed pages, then posts with their comments,
 * profiles and a user's posts, then notifications. The facade and supabase-js share the reads about evenly
 * (an app uses one or the other; both are served at once here). Writes are 5 in 100 (likes the most, then
 * comments, follows, posts), and sessions 1 in 100 (refreshes every hour of use, a sign-in now and then).
 */
export const mix: Operation[] = [
  // Through the facade.
  { name: 'facade GET /feed', weight: 14, run: (c) => c.facade('facade GET /feed', 'GET', '/feed').then() },
  {
    name: 'facade GET /:username',
    weight: 8,
    run: (c, t) => c.facade('facade GET /:username', 'GET', `/${someUsername(t)}`).then(),
  },
  {
    name: 'facade GET /:username/posts',
    weight: 8,
    run: (c, t) => c.facade('facade GET /:username/posts', 'GET', `/${someUsername(t)}/posts`).then(),
  },
  {
    name: 'facade GET /post/:id',
    weight: 8,
    run: (c, t) => c.facade('facade GET /post/:id', 'GET', `/post/${somePost(t).id}`).then(),
  },
  {
    name: 'facade GET /post/:id/comments',
    weight: 8,
    run: (c, t) => c.facade('facade GET /post/:id/comments', 'GET', `/post/${somePost(t).id}/comments`).then(),
  },
  {
    name: 'facade GET /notifications',
    weight: 6,
    run: (c) => c.facade('facade GET /notifications', 'GET', '/notifications').then(),
  },
  // As supabase-js sends them.
  { name: 'rest rpc feed', weight: 10, run: (c) => c.rest('rest POST /rpc/feed', 'POST', '/rpc/feed', {}).then() },
  {
    name: 'rest profile',
    weight: 7,
    run: (c, t) =>
      c.rest(
        'rest GET /profiles (one, with counts)',
        'GET',
        `/profiles?select=username,display_name,bio,followers_count,following_count,posts_count&username=eq.${
          someUsername(t)
        }`,
      ).then(),
  },
  {
    name: "rest a user's posts",
    weight: 8,
    run: (c, t) =>
      c.rest(
        "rest GET /posts (a user's, newest 20)",
        'GET',
        `/posts?select=id,body,emotion,day,created_at,likes_count,comments_count&author_id=eq.${
          somePost(t).authorId
        }&order=created_at.desc&limit=20`,
      ).then(),
  },
  {
    name: 'rest post with comments',
    weight: 10,
    run: (c, t) =>
      c.rest('rest GET /posts (one, with author and 20 comments)', 'GET', postWithComments(somePost(t).id)).then(),
  },
  {
    name: 'rest notifications',
    weight: 7,
    run: (c) =>
      c.rest(
        'rest GET /notifications (newest 20)',
        'GET',
        '/notifications?select=id,kind,created_at,read_at,actor_id,post_id&order=created_at.desc&limit=20',
      ).then(),
  },
  // Writes, each undone.
  {
    name: 'facade like, unlike',
    weight: 1.5,
    async run(c, t) {
      const id = somePost(t).id;
      const liked = await c.facade('facade POST /post/:id/like', 'POST', `/post/${id}/like`, { like: true });
      if (liked.status === 200) {
        await c.facade('facade POST /post/:id/like (unlike)', 'POST', `/post/${id}/like`, { like: false });
      }
    },
  },
  {
    name: 'rest like, unlike',
    weight: 1,
    async run(c, t) {
      const id = somePost(t).id;
      const liked = await c.rest('rest POST /post_likes', 'POST', '/post_likes', { post_id: id }, 'return=minimal');
      if (liked.status === 201) {
        await c.rest('rest DELETE /post_likes', 'DELETE', `/post_likes?post_id=eq.${id}&user_id=eq.${c.user.id}`);
      }
    },
  },
  {
    name: 'facade comment, delete it',
    weight: 1,
    async run(c, t) {
      const made = await c.facade('facade POST /post/:id/comment', 'POST', `/post/${somePost(t).id}/comment`, {
        body: 'soak comment',
      });
      if (made.status === 201) {
        await c.facade('facade DELETE /post/comment/:id', 'DELETE', `/post/comment/${made.body.id}`);
      }
    },
  },
  {
    name: 'rest comment, delete it',
    weight: 0.5,
    async run(c, t) {
      const made = await c.rest(
        'rest POST /comments',
        'POST',
        '/comments?select=id',
        { post_id: somePost(t).id, body: 'soak comment' },
        'return=representation',
      );
      if (made.status === 201) await c.rest('rest DELETE /comments', 'DELETE', `/comments?id=eq.${made.body[0].id}`);
    },
  },
  {
    name: 'facade follow, unfollow',
    weight: 0.5,
    async run(c, t) {
      // One follow in five is of another load account, so theirs is a notification list with something in it.
      // Never an account it follows for its feed: the unfollow would take it out of the feed for good.
      const following = t.following.get(c.user.username);
      const whom = oneOf(
        (Math.random() < 0.2 ? t.loadUsernames : t.usernames).filter((u) =>
          u !== c.user.username && !following?.has(u)
        ),
      );
      const followed = await c.facade('facade POST /:username/follow', 'POST', `/${whom}/follow`, { follow: true });
      if (followed.status === 200) {
        await c.facade('facade POST /:username/follow (unfollow)', 'POST', `/${whom}/follow`, { follow: false });
      }
    },
  },
  {
    name: 'facade post, delete it',
    weight: 0.5,
    async run(c) {
      const made = await c.facade('facade POST /post/create', 'POST', '/post/create', { body: 'soak post' });
      if (made.status === 201) await c.facade('facade DELETE /post/:id', 'DELETE', `/post/${made.body.id}`);
    },
  },
  // Sessions, through Auth.
  {
    name: 'auth refresh',
    weight: 0.7,
    async run(c) {
      const refreshed = await c.auth('auth POST /token?grant_type=refresh_token', '/token?grant_type=refresh_token', {
        refresh_token: c.user.refreshToken,
      });
      if (refreshed.status === 200) adopt(c.user, refreshed.body);
    },
  },
  {
    name: 'auth sign in, sign the old session out',
    weight: 0.3,
    async run(c) {
      const signedIn = await c.auth('auth POST /token?grant_type=password', '/token?grant_type=password', {
        email: c.user.email,
        password: driverPassword,
      });
      if (signedIn.status !== 200) return;
      // The session it replaces is signed out, so an hour of sign-ins leaves no pile of live sessions.
      const previous = c.user.accessToken;
      adopt(c.user, signedIn.body);
      await c.auth('auth POST /logout?scope=local (previous session)', '/logout?scope=local', undefined, previous);
    },
  },
];

function adopt(user: Driver, session: { access_token: string; refresh_token: string }): void {
  user.accessToken = session.access_token;
  user.refreshToken = session.refresh_token;
}
