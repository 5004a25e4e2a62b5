-- What the API functions return: the JSON of a profile, a post and a comment as one viewer sees them
-- (fresh counts and viewer flags), one page of a list, and lookups that turn "not visible" into 404.
-- All security invoker but the author card: RLS decides what they can read.

create function private.profile_json(p_profile public.profiles, p_viewer uuid)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select jsonb_build_object(
    'id', p_profile.id,
    'username', p_profile.username,
    'display_name', p_profile.display_name,
    'bio', p_profile.bio,
    'avatar_url', p_profile.avatar_url,
    'time_zone', p_profile.time_zone,
    'is_private', p_profile.is_private,
    'followers_count', p_profile.followers_count,
    'following_count', p_profile.following_count,
    'posts_count', p_profile.posts_count,
    'banned', p_profile.banned_at is not null,
    'created_at', p_profile.created_at,
    'viewer', case when p_viewer is null or p_viewer = p_profile.id then null else jsonb_build_object(
      'following', exists (select 1 from public.follows f
        where f.follower_id = p_viewer and f.followee_id = p_profile.id and f.status = 'accepted'),
      'requested', exists (select 1 from public.follows f
        where f.follower_id = p_viewer and f.followee_id = p_profile.id and f.status = 'pending'),
      'follows_you', exists (select 1 from public.follows f
        where f.follower_id = p_profile.id and f.followee_id = p_viewer and f.status = 'accepted'),
      'close_friend', exists (select 1 from public.close_friends c
        where c.owner_id = p_viewer and c.friend_id = p_profile.id)
    ) end
  )
$$;
revoke execute on function private.profile_json(public.profiles, uuid) from public;
grant execute on function private.profile_json(public.profiles, uuid) to anon, authenticated, service_role;
comment on function private.profile_json(public.profiles, uuid) is 'A profile as JSON, with the viewer''s relation to it (null for oneself or no viewer).';

-- The short card of an account: for anyone when it is confirmed, not banned and has not blocked the caller;
-- for the caller who blocked it (their blocks list); else for admins only (null otherwise). Security definer:
-- it reads the profile past RLS and checks these itself, more cheaply than the per-row visibility check.
create function private.author_json(p_id uuid)
returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  select jsonb_build_object('id', p.id, 'username', p.username, 'display_name', p.display_name, 'avatar_url', p.avatar_url)
  from public.profiles p
  where p.id = p_id
    and case
      when p.confirmed_at is not null and p.banned_at is null
           and not exists (select 1 from public.blocks b where b.blocker_id = p.id and b.blocked_id = auth.uid())
        then true
      when exists (select 1 from public.blocks b where b.blocker_id = auth.uid() and b.blocked_id = p.id)
        then true
      else private.is_admin()
    end
$$;
revoke execute on function private.author_json(uuid) from public;
grant execute on function private.author_json(uuid) to anon, authenticated, service_role;
comment on function private.author_json(uuid) is
  'The short card of an account the caller may see or blocked (admins: any); null otherwise.';

create function private.post_json(p_post public.posts, p_viewer uuid)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select jsonb_build_object(
    'id', p_post.id,
    'author', private.author_json(p_post.author_id),
    'body', p_post.body,
    'media', to_jsonb(p_post.media),
    'emotion', p_post.emotion,
    'privacy', p_post.privacy,
    'day', p_post.day,
    'likes_count', p_post.likes_count,
    'comments_count', p_post.comments_count,
    'banned', p_post.banned_at is not null,
    'created_at', p_post.created_at,
    'edited_at', p_post.edited_at,
    'viewer', case when p_viewer is null then null else jsonb_build_object(
      'liked', exists (select 1 from public.post_likes l where l.post_id = p_post.id and l.user_id = p_viewer),
      'is_author', p_post.author_id = p_viewer
    ) end
  )
$$;
revoke execute on function private.post_json(public.posts, uuid) from public;
grant execute on function private.post_json(public.posts, uuid) to anon, authenticated, service_role;
comment on function private.post_json(public.posts, uuid) is 'A post as JSON, with its author''s card and the viewer''s flags.';

create function private.comment_json(p_comment public.comments, p_viewer uuid)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select jsonb_build_object(
    'id', p_comment.id,
    'post_id', p_comment.post_id,
    'parent_id', p_comment.parent_id,
    'author', private.author_json(p_comment.author_id),
    'body', p_comment.body,
    'likes_count', p_comment.likes_count,
    'replies_count', p_comment.replies_count,
    'created_at', p_comment.created_at,
    'viewer', case when p_viewer is null then null else jsonb_build_object(
      'liked', exists (select 1 from public.comment_likes l where l.comment_id = p_comment.id and l.user_id = p_viewer),
      'can_delete', p_comment.author_id = p_viewer
        or private.is_post_author(p_viewer, p_comment.post_id)
        or private.is_admin()
    ) end
  )
$$;
revoke execute on function private.comment_json(public.comments, uuid) from public;
grant execute on function private.comment_json(public.comments, uuid) to anon, authenticated, service_role;
comment on function private.comment_json(public.comments, uuid) is 'A comment as JSON, with its author''s card and the viewer''s flags.';

-- One page of a list: `p_rows` holds up to limit + 1 entries {at, id, item} in list order; the extra one
-- only says that another page exists, whose cursor names the page's last entry.
create function private.to_page(p_rows jsonb, p_limit integer)
returns jsonb
language sql
immutable
set search_path = ''
as $$
  select jsonb_build_object(
    'items', coalesce(
      (select jsonb_agg(r.value -> 'item' order by r.ordinality)
       from jsonb_array_elements(p_rows) with ordinality r
       where r.ordinality <= p_limit),
      '[]'::jsonb),
    'next_cursor', case when jsonb_array_length(p_rows) > p_limit then private.encode_cursor(
      (p_rows -> (p_limit - 1) ->> 'at')::timestamptz, (p_rows -> (p_limit - 1) ->> 'id')::uuid) end
  )
$$;
revoke execute on function private.to_page(jsonb, integer) from public;
grant execute on function private.to_page(jsonb, integer) to anon, authenticated, service_role;
comment on function private.to_page(jsonb, integer) is 'A page {items, next_cursor} from up to limit + 1 entries {at, id, item}.';

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
  if not (private.is_admin() or private.can_see_activity_of(private.uid(), p_owner.id)) then
    perform private.fail(403, 'private_account', format('@%s is private: follow them to see this', p_owner.username));
  end if;
end;
$$;
revoke execute on function private.require_activity_visible(public.profiles) from public;
grant execute on function private.require_activity_visible(public.profiles) to anon, authenticated, service_role;
comment on function private.require_activity_visible(public.profiles) is 'Raises 403 private_account unless the caller may see the owner''s activity.';
