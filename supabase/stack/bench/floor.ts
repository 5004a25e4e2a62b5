// The set-based floor of a user-posts page: the page public.user_posts returns (the same JSON), written by
// hand as one query with joins and no per-row function. Visibility is decided once for the owner and once
// for the viewer's close-friend membership instead of per row, and the viewer's likes come from one join.
// It runs as service_role (which bypasses row-level security: the query applies the rules itself) with the
// reader's claims, so auth.uid() is the reader, as pgbench runs the API function.
import { literal } from './endpoints.ts';

export function floorSql(username: string, cursor?: string): string {
  return `
with viewer as (select auth.uid() as id),
owner as (
  select o.*, exists (select 1 from public.close_friends c where c.owner_id = o.id and c.friend_id = v.id) as viewer_is_close_friend
  from public.profiles o cross join viewer v
  where o.username = ${literal(username)}
    and (o.id = v.id or o.confirmed_at is not null and o.banned_at is null
      and not exists (select 1 from public.blocks b
        where (b.blocker_id = o.id and b.blocked_id = v.id) or (b.blocker_id = v.id and b.blocked_id = o.id))
      and (not o.is_private or exists (select 1 from public.follows f
        where f.follower_id = v.id and f.followee_id = o.id and f.status = 'accepted')))
),
after as (select * from private.decode_cursor(${cursor ? literal(cursor) : 'null'})),
page as (
  select p.*, row_number() over (order by p.created_at desc, p.id desc) as n
  from (
    select p.* from public.posts p cross join owner o cross join viewer v cross join after a
    where p.author_id = o.id
      and (p.author_id = v.id or p.banned_at is null
        and (p.privacy = 'public' or p.privacy = 'close_friends' and o.viewer_is_close_friend))
      and (a.at is null or (p.created_at, p.id) < (a.at, a.id))
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
    'viewer', case when v.id is null then null
      else jsonb_build_object('liked', l.user_id is not null, 'is_author', p.author_id = v.id) end
  ) order by p.n) filter (where p.n <= 20), '[]'::jsonb),
  'next_cursor', case when count(*) > 20
    then (select private.encode_cursor(q.created_at, q.id) from page q where q.n = 20) end
)
from page p cross join owner o cross join viewer v
left join public.post_likes l on l.post_id = p.id and l.user_id = v.id`;
}
