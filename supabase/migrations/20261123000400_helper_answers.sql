-- The security-definer helpers that policies and API functions call must be executable by the client
-- roles, so they must not answer more than the caller may know. Those that take a viewer answer only for
-- the caller (or for an anonymous viewer), never on behalf of someone else; an author card is shown only
-- of an account the caller may see, of one the caller blocked (their blocks list), or to an admin.

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

create or replace function private.can_see_user(p_viewer uuid, p_target uuid)
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

create or replace function private.can_see_activity_of(p_viewer uuid, p_owner uuid)
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

create or replace function private.can_see_post(
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

create or replace function private.can_see_post_id(p_viewer uuid, p_post uuid)
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

create or replace function private.can_see_comment_id(p_viewer uuid, p_comment uuid)
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

create or replace function private.is_post_author(p_viewer uuid, p_post uuid)
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

create or replace function private.author_json(p_id uuid)
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
