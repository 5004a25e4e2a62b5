// Set-based floors: the pages public.user_posts and public.feed return (the same JSON), written by hand as
// one query with joins and no per-row function. The caller's relations (the owner's or the followed
// accounts' visibility, close-friend membership) and the cursor are decided once, the page is one index walk,
// and the viewer's likes come from one join. They show what a page costs without row-level security.
// They run as service_role (which bypasses row-level security: each query applies the rules itself) with the
// reader's claims, so auth.uid() is the reader, as pgbench runs the API function.
import { literal } from './endpoints.ts';

export interface FloorCase {
  /** The list and page, as the report prints it. */
  name: string;
  api: string;
  floor: string;
}

const me = '(select auth.uid())';

/**
 * An account `o` is visible to the reader: themselves, or confirmed, not banned and no block either way (the
 * reader's blocks are one set, hashed once per query).
 */
const visibleAccount = `(o.id = ${me} or o.confirmed_at is not null and o.banned_at is null
  and o.id not in (select b.blocked_id from public.blocks b where b.blocker_id = ${me}
    union all select b.blocker_id from public.blocks b where b.blocked_id = ${me}))`;

/** The post `p` is visible, given that its author's activity is: the reader's own, or unbanned and shown to them. */
const visiblePost = (listingMe: string) =>
  `(p.author_id = ${me} or p.banned_at is null and (p.privacy = 'public' or p.privacy = 'close_friends' and ${listingMe}))`;

const below = (cursor?: string) =>
  cursor ? `and (p.created_at, p.id) < (select c.at, c.id from private.decode_cursor(${literal(cursor)}) c)` : '';

/** The page {newer_cursor, items, next_cursor} of `page` (rows p with n = position, limit + 1 at most) joined to `authors` o. */
function pageJson(limit: number): string {
  return `
select jsonb_build_object(
  'newer_cursor', (select private.encode_cursor(q.created_at, q.id) from page q where q.n = 1),
  'items', coalesce(jsonb_agg(jsonb_build_object(
    'id', p.id,
    'author', jsonb_build_object('id', o.id, 'username', o.username, 'display_name', o.display_name, 'avatar_url', o.avatar_url),
    'body', p.body,
    'media', to_jsonb(p.media),
    'emotion', p.emotion,
    'privacy', p.privacy,
    'day', p.day,
    'likes_count', p.likes_count,
    'comments_count', p.comments_count,
    'banned', p.banned_at is not null,
    'created_at', p.created_at,
    'edited_at', p.edited_at,
    'mentions', coalesce((select jsonb_agg(jsonb_build_object('id', u.id, 'username', u.username,
        'display_name', u.display_name, 'avatar_url', u.avatar_url) order by u.username)
      from public.post_mentions m join public.profiles u on u.id = m.user_id where m.post_id = p.id), '[]'::jsonb),
    'viewer', case when ${me} is null then null
      else jsonb_build_object('liked', l.user_id is not null, 'is_author', p.author_id = ${me}) end
  ) order by p.n) filter (where p.n <= ${limit}), '[]'::jsonb),
  'next_cursor', case when count(*) > ${limit}
    then (select private.encode_cursor(q.created_at, q.id) from page q where q.n = ${limit}) end
)
from page p join authors o on o.id = p.author_id
left join public.post_likes l on l.post_id = p.id and l.user_id = ${me}`;
}

/**
 * The posts of one account, as public.user_posts returns them (20 a page). The account is given by its id, a
 * constant (public.user_posts looks it up by username first), so the planner sees whose posts it walks.
 */
export function userPostsFloorSql(ownerId: string, cursor?: string): string {
  return `
with authors as materialized (
  select o.*, exists (select 1 from public.close_friends c where c.owner_id = o.id and c.friend_id = ${me}) as listing_me
  from public.profiles o
  where o.id = ${literal(ownerId)}::uuid and ${visibleAccount}
    and (not o.is_private or o.id = ${me} or exists (select 1 from public.follows f
      where f.follower_id = ${me} and f.followee_id = o.id and f.status = 'accepted'))
),
page as (
  select p.*, row_number() over (order by p.created_at desc, p.id desc) as n
  from (
    select p.* from public.posts p
    where p.author_id = ${literal(ownerId)}::uuid and exists (select 1 from authors o)
      and ${visiblePost('(select o.listing_me from authors o)')}
      ${below(cursor)}
    order by p.created_at desc, p.id desc
    limit 21
  ) p
)${pageJson(20)}`;
}

/**
 * The reader's home feed, as public.feed returns it: followed (accepted) and own posts, `limit` a page.
 * `authors` are the accounts the reader follows and the reader, given as a constant array: public.feed
 * computes that array first and plans its query for it (a custom plan), so the planner sees the same value.
 */
export function feedFloorSql(authors: string[], limit: number, cursor?: string): string {
  return `
with page as (
  select p.*, row_number() over (order by p.created_at desc, p.id desc) as n
  from (
    select p.* from public.posts p
    where p.author_id = any (${literal(`{${authors.join(',')}}`)}::uuid[])
      and ${visiblePost(`p.author_id in (select c.owner_id from public.close_friends c where c.friend_id = ${me})`)}
      and exists (select 1 from public.profiles o where o.id = p.author_id and ${visibleAccount})
      ${below(cursor)}
    order by p.created_at desc, p.id desc
    limit ${limit + 1}
  ) p
),
authors as (select o.* from public.profiles o where o.id in (select p.author_id from page p))${pageJson(limit)}`;
}
