// The endpoints measured: each REST request (through the gateway, as a client sends it) and the SQL call the
// facade makes for it (functions/api/routes/), which pgbench runs alone. Reads run as the reader; writes as
// every driver at once, each its own caller.
import type { Fixtures } from './fixtures.ts';

export interface Endpoint {
  name: string;
  kind: 'read' | 'write';
  method: 'GET' | 'POST';
  /** Relative to the function's base URL (…/functions/v1/api). */
  path: string;
  body?: unknown;
  sql: string;
}

export function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

export function userPostsSql(username: string, cursor?: string): string {
  return `select public.user_posts(p_username => ${literal(username)}${
    cursor ? `, p_cursor => ${literal(cursor)}` : ''
  })`;
}

export function endpoints(f: Fixtures): Endpoint[] {
  const liked = literal(f.likedPostId);
  const commented = literal(f.commentedPostId);
  return [
    {
      name: 'GET /post/:id',
      kind: 'read',
      method: 'GET',
      path: `/post/${f.likedPostId}`,
      sql: `select public.get_post(p_post_id => ${liked})`,
    },
    {
      name: 'GET /:username (profile, 20k followers)',
      kind: 'read',
      method: 'GET',
      path: '/celebrity',
      sql: `select public.get_profile(p_username => 'celebrity')`,
    },
    {
      name: 'GET /:username/posts page 1',
      kind: 'read',
      method: 'GET',
      path: '/celebrity/posts',
      sql: userPostsSql('celebrity'),
    },
    {
      name: `GET /:username/posts page ${f.deepPage}`,
      kind: 'read',
      method: 'GET',
      path: `/celebrity/posts?cursor=${encodeURIComponent(f.deepCursor)}`,
      sql: userPostsSql('celebrity', f.deepCursor),
    },
    {
      name: 'GET /:username/calendar (365 days)',
      kind: 'read',
      method: 'GET',
      path: '/diarist/calendar',
      sql: `select public.calendar(p_username => 'diarist')`,
    },
    {
      name: 'GET /post/:id/comments',
      kind: 'read',
      method: 'GET',
      path: `/post/${f.commentedPostId}/comments`,
      sql: `select public.post_comments(p_post_id => ${commented})`,
    },
    {
      name: 'GET /post/:id/likes (10k likes)',
      kind: 'read',
      method: 'GET',
      path: `/post/${f.likedPostId}/likes`,
      sql: `select public.post_likes(p_post_id => ${liked})`,
    },
    {
      name: 'GET /:username/followers (20k)',
      kind: 'read',
      method: 'GET',
      path: '/celebrity/followers',
      sql: `select public.followers(p_username => 'celebrity')`,
    },
    {
      name: 'GET /feed (reader following 1,000)',
      kind: 'read',
      method: 'GET',
      path: '/feed',
      sql: 'select public.feed()',
    },
    {
      name: 'GET /search posts ("celebrity": 25k matches)',
      kind: 'read',
      method: 'GET',
      path: '/search?q=celebrity&type=posts',
      sql: `select public.search(p_q => 'celebrity', p_type => 'posts')`,
    },
    {
      name: 'GET /search users ("u12": ~1,100 matches)',
      kind: 'read',
      method: 'GET',
      path: '/search?q=u12&type=users',
      sql: `select public.search(p_q => 'u12', p_type => 'users')`,
    },
    {
      name: 'GET /search users ("u1": ~11,000 matches)',
      kind: 'read',
      method: 'GET',
      path: '/search?q=u1&type=users',
      sql: `select public.search(p_q => 'u1', p_type => 'users')`,
    },
    {
      name: 'GET /search users ("user": every display name)',
      kind: 'read',
      method: 'GET',
      path: '/search?q=user&type=users',
      sql: `select public.search(p_q => 'user', p_type => 'users')`,
    },
    {
      name: 'GET /feed?limit=100',
      kind: 'read',
      method: 'GET',
      path: '/feed?limit=100',
      sql: 'select public.feed(p_limit => 100)',
    },
    {
      name: 'GET /notifications',
      kind: 'read',
      method: 'GET',
      path: '/notifications',
      sql: 'select public.notifications()',
    },
    {
      name: 'POST /post/:id/like (toggle, one post)',
      kind: 'write',
      method: 'POST',
      path: `/post/${f.likedPostId}/like`,
      sql: `select public.like_post(p_post_id => ${liked})`,
    },
    {
      name: 'POST /post/:id/comment',
      kind: 'write',
      method: 'POST',
      path: `/post/${f.commentedPostId}/comment`,
      body: { body: 'bench comment' },
      sql: `select public.comment_post(p_post_id => ${commented}, p_body => 'bench comment')`,
    },
    {
      name: 'POST /:username/follow (toggle)',
      kind: 'write',
      method: 'POST',
      path: '/follow_target/follow',
      sql: `select public.follow(p_username => 'follow_target')`,
    },
    {
      name: 'POST /post/create',
      kind: 'write',
      method: 'POST',
      path: '/post/create',
      body: { body: 'bench post' },
      sql: `select public.create_post(p_body => 'bench post')`,
    },
  ];
}
