-- The visibility rules of DOMAIN.md, written once. Every policy and API function asks these helpers, so
-- no read path can show what another hides. They take the viewer as an argument (policies pass
-- `(select private.uid())`, evaluated once per statement) and leave admins to the caller: admins see
-- everything, and the policies say so with `(select private.is_admin())`.
-- They are plpgsql, not sql: PL/pgSQL keeps the plans of their queries for the session, while a SQL
-- function called from another is planned again on every call (measured: 5x slower per row). Their
-- high cost tells the planner to check as few rows as it can: a page walks the index in list order and
-- stops at the limit instead of checking every row of the author and sorting.

-- An account the viewer may see at all: confirmed, not banned, and no block between the two.
create function private.can_see_user(p_viewer uuid, p_target uuid)
returns boolean
language plpgsql
stable
cost 1000
security definer
set search_path = ''
as $$
begin
  return (
    p_viewer is not distinct from p_target and p_target is not null
      or exists (
        select 1 from public.profiles p
        where p.id = p_target and p.confirmed_at is not null and p.banned_at is null
          and not exists (
            select 1 from public.blocks b
            where (b.blocker_id = p_target and b.blocked_id = p_viewer)
               or (b.blocker_id = p_viewer and b.blocked_id = p_target)
          )
      )
  );
end;
$$;
revoke execute on function private.can_see_user(uuid, uuid) from public;
grant execute on function private.can_see_user(uuid, uuid) to anon, authenticated, service_role;

-- Whose posts, calendar and follow lists the viewer may see: their own, a visible public account's,
-- or a visible private account's they follow (a pending request grants nothing).
create function private.can_see_activity_of(p_viewer uuid, p_owner uuid)
returns boolean
language plpgsql
stable
cost 1000
security definer
set search_path = ''
as $$
begin
  return (
    p_viewer is not distinct from p_owner and p_owner is not null
      or private.can_see_user(p_viewer, p_owner) and (
        not (select p.is_private from public.profiles p where p.id = p_owner)
        or exists (
          select 1 from public.follows f
          where f.follower_id = p_viewer and f.followee_id = p_owner and f.status = 'accepted'
        )
      )
  );
end;
$$;
revoke execute on function private.can_see_activity_of(uuid, uuid) from public;
grant execute on function private.can_see_activity_of(uuid, uuid) to anon, authenticated, service_role;

-- A post: its author always; others if it is not banned, they may see the author's activity, and its
-- privacy lets them (close_friends: members of the author's list).
create function private.can_see_post(
  p_viewer uuid, p_author uuid, p_privacy public.post_privacy, p_banned_at timestamptz
)
returns boolean
language plpgsql
stable
cost 1000
security definer
set search_path = ''
as $$
begin
  return (
    p_viewer is not distinct from p_author and p_author is not null
      or p_banned_at is null
         and p_privacy <> 'private'
         and private.can_see_activity_of(p_viewer, p_author)
         and (
           p_privacy = 'public'
           or exists (
             select 1 from public.close_friends c where c.owner_id = p_author and c.friend_id = p_viewer
           )
         )
  );
end;
$$;
revoke execute on function private.can_see_post(uuid, uuid, public.post_privacy, timestamptz) from public;
grant execute on function private.can_see_post(uuid, uuid, public.post_privacy, timestamptz)
  to anon, authenticated, service_role;

create function private.can_see_post_id(p_viewer uuid, p_post uuid)
returns boolean
language plpgsql
stable
cost 1000
security definer
set search_path = ''
as $$
begin
  return (
    coalesce(
      (select private.can_see_post(p_viewer, p.author_id, p.privacy, p.banned_at) from public.posts p where p.id = p_post),
      false)
  );
end;
$$;
revoke execute on function private.can_see_post_id(uuid, uuid) from public;
grant execute on function private.can_see_post_id(uuid, uuid) to anon, authenticated, service_role;

-- A comment: its post is visible and so is its author.
create function private.can_see_comment_id(p_viewer uuid, p_comment uuid)
returns boolean
language plpgsql
stable
cost 1000
security definer
set search_path = ''
as $$
begin
  return (
    coalesce(
      (select private.can_see_post_id(p_viewer, c.post_id) and private.can_see_user(p_viewer, c.author_id)
       from public.comments c where c.id = p_comment),
      false)
  );
end;
$$;
revoke execute on function private.can_see_comment_id(uuid, uuid) from public;
grant execute on function private.can_see_comment_id(uuid, uuid) to anon, authenticated, service_role;

-- Whether the viewer is the author of the post: post authors may delete comments on their posts.
create function private.is_post_author(p_viewer uuid, p_post uuid)
returns boolean
language plpgsql
stable
cost 1000
security definer
set search_path = ''
as $$
begin
  return (
    exists (select 1 from public.posts p where p.id = p_post and p.author_id = p_viewer)
  );
end;
$$;
revoke execute on function private.is_post_author(uuid, uuid) from public;
grant execute on function private.is_post_author(uuid, uuid) to anon, authenticated, service_role;
