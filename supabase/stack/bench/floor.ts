// The set-based floor of a user-posts page: the page public.user_posts returns (the same JSON), written by
// hand as one query with joins and no per-row function. The owner's visibility, the viewer's close-friend
// membership and the cursor are decided once (scalar subqueries the planner runs once), the page is one walk
// of posts_author_idx, and the viewer's likes come from one join.
// It runs as service_role (which bypasses row-level security: the query applies the rules itself) with the
// reader's claims, so auth.uid() is the reader, as pgbench runs the API function.
import { literal } from './endpoints.ts';

export function floorSql(username: string, cursor?: string): string {
  const after = cursor
    ? `and (p.created_at, p.id) < (select c.at, c.id from private.decode_cursor(${literal(cursor)}) c)`
    : '';
  return `
with owner as materialized (
  select o.*, exists (select 1 from public.close_friends c
    where c.owner_id = o.id and c.friend_id = (select auth.uid())) as viewer_is_close_friend
  from public.profiles o
  where o.username = ${literal(username)}
    and (o.id = (select auth.uid()) or o.confirmed_at is not null and o.banned_at is null
      and not exists (select 1 from public.blocks b
        where (b.blocker_id = o.id and b.blocked_id = (select auth.uid()))
           or (b.blocker_id = (select auth.uid()) and b.blocked_id = o.id))
      and (not o.is_private or exists (select 1 from public.follows f
        where f.follower_id = (select auth.uid()) and f.followee_id = o.id and f.status = 'accepted')))
),
page as (
  select p.*, row_number() over (order by p.created_at desc, p.id desc) as n
  from (
    select p.* from public.posts p
    where p.author_id = (select o.id from owner o)
      and (p.author_id = (select auth.uid()) or p.banned_at is null
        and (p.privacy = 'public' or p.privacy = 'close_friends' and (select o.viewer_is_close_friend from owner o)))
      ${after}
    order by p.created_at desc, p.id desc
    limit 21
  ) p
)
select jsonb_build_object(
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
    'viewer', case when (select auth.uid()) is null then null
      else jsonb_build_object('liked', l.user_id is not null, 'is_author', p.author_id = (select auth.uid())) end
  ) order by p.n) filter (where p.n <= 20), '[]'::jsonb),
  'next_cursor', case when count(*) > 20
    then (select private.encode_cursor(q.created_at, q.id) from page q where q.n = 20) end
)
from page p cross join owner o
left join public.post_likes l on l.post_id = p.id and l.user_id = (select auth.uid())`;
}
