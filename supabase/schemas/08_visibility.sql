-- The visibility rules, written once. An account is visible when its e-mail is confirmed, it is not banned
-- and no block stands between it and the viewer (either way). A private account's posts, calendar and follow
-- lists are for its accepted followers; a post is also subject to its privacy and its ban; a comment needs
-- both its post and its author visible. Admins see everything. Every policy and API function asks these
-- helpers, so no read path can show what another hides. They take the viewer as an argument (policies pass
-- `(select private.uid())`, evaluated once per statement) and leave admins to the caller: the policies say
-- so with `(select private.is_admin())`.
-- They are plpgsql, not sql: PL/pgSQL keeps the plans of their queries for the session, while a SQL
-- function called from another is planned again on every call (measured: 5x slower per row). Their
-- high cost tells the planner to check as few rows as it can: a page walks the index in list order and
-- stops at the limit instead of checking every row of the author and sorting.
-- Being security definer and executable by the client roles, they must not answer more than the caller may
-- know: they answer only for the caller (or for an anonymous viewer), never on behalf of someone else.

-- A viewer argument must be the caller, whose id the request's JWT claims carry (the session itself is
-- checked by private.uid(), which the callers pass), or null: asking as an anonymous viewer tells nothing.
create function private.check_viewer(p_viewer uuid)
returns void
language plpgsql
stable
set search_path = ''
as $$
begin
  if p_viewer is not null and p_viewer is distinct from auth.uid() then
    raise exception using errcode = '42501', message = 'The visibility helpers answer only for the caller';
  end if;
end;
$$;
revoke execute on function private.check_viewer(uuid) from public;
grant execute on function private.check_viewer(uuid) to anon, authenticated, service_role;
comment on function private.check_viewer(uuid) is 'Refuses a viewer argument that is neither null nor the caller.';

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
  perform private.check_viewer(p_viewer);
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
comment on function private.can_see_user(uuid, uuid) is
  'Whether the viewer (the caller or null) may see the account: themselves, or confirmed, not banned, no block.';

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
  perform private.check_viewer(p_viewer);
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
comment on function private.can_see_activity_of(uuid, uuid) is
  'Whether the viewer may see the owner''s posts, calendar and follow lists (private accounts: accepted followers).';

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
  perform private.check_viewer(p_viewer);
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
comment on function private.can_see_post(uuid, uuid, public.post_privacy, timestamptz) is
  'Whether the viewer may see a post of this author, privacy and ban state.';

create function private.can_see_post_id(p_viewer uuid, p_post uuid)
returns boolean
language plpgsql
stable
cost 1000
security definer
set search_path = ''
as $$
begin
  perform private.check_viewer(p_viewer);
  return (
    coalesce(
      (select private.can_see_post(p_viewer, p.author_id, p.privacy, p.banned_at) from public.posts p where p.id = p_post),
      false)
  );
end;
$$;
revoke execute on function private.can_see_post_id(uuid, uuid) from public;
grant execute on function private.can_see_post_id(uuid, uuid) to anon, authenticated, service_role;
comment on function private.can_see_post_id(uuid, uuid) is 'Whether the viewer may see the post; false for a missing one.';

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
  perform private.check_viewer(p_viewer);
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
comment on function private.can_see_comment_id(uuid, uuid) is 'Whether the viewer may see the comment; false for a missing one.';

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
  perform private.check_viewer(p_viewer);
  return (
    exists (select 1 from public.posts p where p.id = p_post and p.author_id = p_viewer)
  );
end;
$$;
revoke execute on function private.is_post_author(uuid, uuid) from public;
grant execute on function private.is_post_author(uuid, uuid) to anon, authenticated, service_role;
comment on function private.is_post_author(uuid, uuid) is 'Whether the viewer wrote the post.';

-- Who may delete a comment: its author, its post's author, an admin. Written once, for the table's delete
-- policy and for private.delete_comment_by_right.
create function private.may_delete_comment(p_author uuid, p_post uuid)
returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select private.uid() = p_author or private.is_post_author(private.uid(), p_post) or private.is_admin()
$$;
revoke execute on function private.may_delete_comment(uuid, uuid) from public;
grant execute on function private.may_delete_comment(uuid, uuid) to authenticated, service_role;
comment on function private.may_delete_comment(uuid, uuid) is
  'Whether the caller may delete a comment by p_author on p_post: its author, the post''s author or an admin.';
