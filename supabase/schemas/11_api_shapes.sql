-- What the API functions return: the JSON of an account card, a profile, a post and a comment as the caller
-- sees them (viewer flags included), one page of a list, and lookups that turn "not visible" into 404.
-- Each shape is a view (security invoker: RLS decides which rows exist), so a page is one query: the
-- planner inlines the view, walks the list's index, and builds the JSON of the rows it returns only, with
-- cards by join and viewer flags by semi-join. Single objects read the same views (private.*_item).
-- `(select private.uid())` is the caller, evaluated once per query; `offset 0` keeps each flag a lookup by
-- key per returned row (09_policies.sql says why). The single-object helpers are PL/pgSQL
-- so that their plans are kept for the session (private.uid() says why).

create view private.cards with (security_invoker = true) as
select p.id,
  jsonb_build_object('id', p.id, 'username', p.username, 'display_name', p.display_name, 'avatar_url', p.avatar_url)
    as card
from public.profiles p;
grant select on private.cards to anon, authenticated, service_role;
comment on view private.cards is 'The short card of each account the caller may see (a definer reading it: any).';

create view private.profile_items with (security_invoker = true) as
select p.id, p.username,
  jsonb_build_object(
    'id', p.id,
    'username', p.username,
    'display_name', p.display_name,
    'bio', p.bio,
    'avatar_url', p.avatar_url,
    'time_zone', p.time_zone,
    'is_private', p.is_private,
    'followers_count', p.followers_count + coalesce((select t.delta from private.pending_totals t
      where t.counter = 'followers' and t.target_id = p.id), 0),
    'following_count', p.following_count + coalesce((select t.delta from private.pending_totals t
      where t.counter = 'following' and t.target_id = p.id), 0),
    'posts_count', p.posts_count,
    'banned', p.banned_at is not null,
    'created_at', p.created_at,
    'viewer', case when p.id is distinct from (select private.uid()) and (select private.uid()) is not null
      then jsonb_build_object(
        'following', exists (select 1 from public.follows f
          where f.follower_id = (select private.uid()) and f.followee_id = p.id and f.status = 'accepted' offset 0),
        'requested', exists (select 1 from public.follows f
          where f.follower_id = (select private.uid()) and f.followee_id = p.id and f.status = 'pending' offset 0),
        'follows_you', exists (select 1 from public.follows f
          where f.follower_id = p.id and f.followee_id = (select private.uid()) and f.status = 'accepted' offset 0),
        'close_friend', exists (select 1 from public.close_friends c
          where c.owner_id = (select private.uid()) and c.friend_id = p.id offset 0))
    end
  ) as item
from public.profiles p;
grant select on private.profile_items to anon, authenticated, service_role;
comment on view private.profile_items is
  'Each visible profile as JSON, with the caller''s relation to it (viewer: null for oneself or anonymous).';

-- A post as JSON but for its author's card: what private.post_items adds the card to, and what a page of one
-- author's posts reads, adding that one card once rather than once a row (private.posts_page).
create view private.post_bodies with (security_invoker = true) as
select p.id, p.author_id, p.day, p.created_at,
  jsonb_build_object(
    'id', p.id,
    'body', p.body,
    'media', to_jsonb(p.media),
    'emotion', p.emotion,
    'privacy', p.privacy,
    'day', p.day,
    'likes_count', p.likes_count + coalesce((select t.delta from private.pending_totals t
      where t.counter = 'post_likes' and t.target_id = p.id), 0),
    'comments_count', p.comments_count + coalesce((select t.delta from private.pending_totals t
      where t.counter = 'post_comments' and t.target_id = p.id), 0),
    'banned', p.banned_at is not null,
    'created_at', p.created_at,
    'edited_at', p.edited_at,
    'mentions', coalesce((select jsonb_agg(a.card order by a.card ->> 'username')
      from public.post_mentions m join private.cards a on a.id = m.user_id where m.post_id = p.id), '[]'::jsonb),
    'viewer', case when (select private.uid()) is not null then jsonb_build_object(
      'liked', exists (select 1 from public.post_likes l where l.post_id = p.id and l.user_id = (select private.uid()) offset 0),
      'is_author', p.author_id = (select private.uid()))
    end
  ) as item
from public.posts p;
grant select on private.post_bodies to anon, authenticated, service_role;
comment on view private.post_bodies is
  'Each visible post as JSON, with the cards of the visible accounts it mentions and the caller''s flags, but not its author''s card.';

create view private.post_items with (security_invoker = true) as
select b.id, b.author_id, b.day, b.created_at,
  b.item || jsonb_build_object('author', (select a.card from private.cards a where a.id = b.author_id)) as item
from private.post_bodies b;
grant select on private.post_items to anon, authenticated, service_role;
comment on view private.post_items is
  'Each visible post as JSON, with its author''s card, the cards of the visible accounts it mentions and the caller''s flags.';

-- can_delete is the rule of who may delete a comment (its author, the post's author, an admin), read also by
-- private.may_delete_comment for the delete policy.
create view private.comment_items with (security_invoker = true) as
select c.id, c.post_id, c.parent_id, c.created_at, d.can_delete,
  jsonb_build_object(
    'id', c.id,
    'post_id', c.post_id,
    'parent_id', c.parent_id,
    'author', (select a.card from private.cards a where a.id = c.author_id),
    'body', c.body,
    'likes_count', c.likes_count + coalesce((select t.delta from private.pending_totals t
      where t.counter = 'comment_likes' and t.target_id = c.id), 0),
    'replies_count', c.replies_count,
    'mentions', coalesce((select jsonb_agg(a.card order by a.card ->> 'username')
      from public.comment_mentions m join private.cards a on a.id = m.user_id where m.comment_id = c.id), '[]'::jsonb),
    'created_at', c.created_at,
    'viewer', case when (select private.uid()) is not null then jsonb_build_object(
      'liked', exists (select 1 from public.comment_likes l
        where l.comment_id = c.id and l.user_id = (select private.uid()) offset 0),
      'can_delete', d.can_delete)
    end
  ) as item
from public.comments c
cross join lateral (
  select c.author_id = (select private.uid())
      or exists (select 1 from public.posts p where p.id = c.post_id and p.author_id = (select private.uid()) offset 0)
      or (select private.is_admin()) as can_delete
) d;
grant select on private.comment_items to anon, authenticated, service_role;
comment on view private.comment_items is
  'Each visible comment as JSON, with its author''s card, the cards of the visible accounts it mentions and the caller''s flags; can_delete: whether the caller may delete it.';

create function private.card(p_id uuid)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
begin
  return (select a.card from private.cards a where a.id = p_id);
end;
$$;
revoke execute on function private.card(uuid) from public;
grant execute on function private.card(uuid) to anon, authenticated, service_role;
comment on function private.card(uuid) is 'The card of an account the caller may see; null otherwise.';

create function private.profile_item(p_id uuid)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
begin
  return (select i.item from private.profile_items i where i.id = p_id);
end;
$$;
revoke execute on function private.profile_item(uuid) from public;
grant execute on function private.profile_item(uuid) to anon, authenticated, service_role;
comment on function private.profile_item(uuid) is 'A profile the caller may see, as JSON; null otherwise.';

create function private.post_item(p_id uuid)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
begin
  return (select i.item from private.post_items i where i.id = p_id);
end;
$$;
revoke execute on function private.post_item(uuid) from public;
grant execute on function private.post_item(uuid) to anon, authenticated, service_role;
comment on function private.post_item(uuid) is 'A post the caller may see, as JSON; null otherwise.';

create function private.comment_item(p_id uuid)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
begin
  return (select i.item from private.comment_items i where i.id = p_id);
end;
$$;
revoke execute on function private.comment_item(uuid) from public;
grant execute on function private.comment_item(uuid) to anon, authenticated, service_role;
comment on function private.comment_item(uuid) is 'A comment the caller may see, as JSON; null otherwise.';

-- One page of a list: `p_rows` holds up to limit + 1 entries {at, id, item} (or {rank, id, item} for a
-- search) in list order; the extra one only says that another page exists, whose cursor names the page's
-- last entry. A list in time order also names its first entry (newer_cursor), for a later read of what is
-- newer than it (docs/PRODUCT.md, "Lists").
create function private.to_page(p_rows jsonb, p_limit integer)
returns jsonb
language sql
immutable
set search_path = ''
as $$
  select jsonb_build_object(
    'newer_cursor', case when p_rows -> 0 ? 'at' then
      private.encode_cursor((p_rows -> 0 ->> 'at')::timestamptz, (p_rows -> 0 ->> 'id')::uuid) end,
    'items', coalesce(
      (select jsonb_agg(r.value -> 'item' order by r.ordinality)
       from jsonb_array_elements(p_rows) with ordinality r
       where r.ordinality <= p_limit),
      '[]'::jsonb),
    'next_cursor', case when jsonb_array_length(p_rows) > p_limit then (
      select case when last ? 'rank' then private.encode_rank_cursor((last ->> 'rank')::real, (last ->> 'id')::uuid)
        else private.encode_cursor((last ->> 'at')::timestamptz, (last ->> 'id')::uuid) end
      from (select p_rows -> (p_limit - 1) as last) l) end
  )
$$;
revoke execute on function private.to_page(jsonb, integer) from public;
grant execute on function private.to_page(jsonb, integer) to anon, authenticated, service_role;
comment on function private.to_page(jsonb, integer) is
  'A page {items, next_cursor, newer_cursor} from up to limit + 1 entries {at, id, item} or {rank, id, item}.';

-- Lookups: a username, post or comment the caller may see, or 404.
create function private.find_user(p_username text)
returns public.profiles
language plpgsql
stable
set search_path = ''
as $$
declare
  v_profile public.profiles;
begin
  select * into v_profile from public.profiles p where p.username = lower(btrim(p_username));
  if not found then
    perform private.fail(404, 'user_not_found', format('No user "%s"', p_username));
  end if;
  return v_profile;
end;
$$;
revoke execute on function private.find_user(text) from public;
grant execute on function private.find_user(text) to anon, authenticated, service_role;
comment on function private.find_user(text) is 'The profile of a username the caller may see; 404 otherwise.';

create function private.find_post(p_post_id uuid)
returns public.posts
language plpgsql
stable
set search_path = ''
as $$
declare
  v_post public.posts;
begin
  select * into v_post from public.posts p where p.id = p_post_id;
  if not found then
    perform private.fail(404, 'post_not_found', 'Post not found');
  end if;
  return v_post;
end;
$$;
revoke execute on function private.find_post(uuid) from public;
grant execute on function private.find_post(uuid) to anon, authenticated, service_role;
comment on function private.find_post(uuid) is 'A post the caller may see; 404 otherwise.';

create function private.find_comment(p_comment_id uuid)
returns public.comments
language plpgsql
stable
set search_path = ''
as $$
declare
  v_comment public.comments;
begin
  select * into v_comment from public.comments c where c.id = p_comment_id;
  if not found then
    perform private.fail(404, 'comment_not_found', 'Comment not found');
  end if;
  return v_comment;
end;
$$;
revoke execute on function private.find_comment(uuid) from public;
grant execute on function private.find_comment(uuid) to anon, authenticated, service_role;
comment on function private.find_comment(uuid) is 'A comment the caller may see; 404 otherwise.';

-- Posts, calendar and follow lists of a private account: 403, since its profile (and privacy) is public.
create function private.require_activity_visible(p_owner public.profiles)
returns void
language plpgsql
stable
set search_path = ''
as $$
begin
  if not exists (select 1 from private.activity_visible_accounts a where a.id = p_owner.id) then
    perform private.fail(403, 'private_account', format('@%s is private: follow them to see this', p_owner.username));
  end if;
end;
$$;
revoke execute on function private.require_activity_visible(public.profiles) from public;
grant execute on function private.require_activity_visible(public.profiles) to anon, authenticated, service_role;
comment on function private.require_activity_visible(public.profiles) is 'Raises 403 private_account unless the caller may see the owner''s activity.';
