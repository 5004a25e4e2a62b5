-- Relations that must not show through: who blocked you, and the follows and close-friend entries of
-- banned accounts.

-- A direct insert of a follow or close-friend entry towards someone who blocked you (or whom you blocked)
-- is refused exactly as row-level security refuses one towards an id you may not see, so the answer does
-- not tell a block from an unknown account. (The insert triggers run before the policies do.)
create function private.blocked_between(p_a uuid, p_b uuid)
returns boolean
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  -- Waits for any block between the pair being written, so a follow racing a block cannot outlive it.
  perform private.lock_pair(p_a, p_b);
  return exists (
    select 1 from public.blocks b
    where (b.blocker_id = p_a and b.blocked_id = p_b) or (b.blocker_id = p_b and b.blocked_id = p_a)
  );
end;
$$;
revoke execute on function private.blocked_between(uuid, uuid) from public;

-- For the insert triggers: the error row-level security raises for the table.
create function private.refuse_row_if_blocked(p_a uuid, p_b uuid, p_table text)
returns void
language plpgsql
volatile
set search_path = ''
as $$
begin
  if private.blocked_between(p_a, p_b) then
    raise exception using errcode = '42501',
      message = format('new row violates row-level security policy for table "%s"', p_table);
  end if;
end;
$$;
revoke execute on function private.refuse_row_if_blocked(uuid, uuid, text) from public;

-- For the API functions, which answer 404 for an account the caller may not see: a block between the caller
-- and p_other committed since the function looked the account up.
create function private.refuse_if_blocked_with(p_other uuid)
returns void
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  if private.blocked_between(private.uid(), p_other) then
    perform private.fail(404, 'user_not_found', 'No such user');
  end if;
end;
$$;
revoke execute on function private.refuse_if_blocked_with(uuid) from public;
grant execute on function private.refuse_if_blocked_with(uuid) to authenticated, service_role;

create or replace function private.decide_follow_status()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform private.refuse_row_if_blocked(new.follower_id, new.followee_id, 'follows');
  new.status := case
    when (select p.is_private from public.profiles p where p.id = new.followee_id) then 'pending'
    else 'accepted'
  end::public.follow_status;
  new.since := now();
  return new;
end;
$$;
revoke execute on function private.decide_follow_status() from public;

create or replace function private.check_close_friend_insert()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform private.refuse_row_if_blocked(new.owner_id, new.friend_id, 'close_friends');
  return new;
end;
$$;
revoke execute on function private.check_close_friend_insert() from public;

-- Replaced by the two above.
drop function private.refuse_if_blocked(uuid, uuid);

create or replace function public.follow(p_username text, p_follow boolean default null)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_me uuid := private.require_uid();
  v_target public.profiles := private.find_user(p_username);
  v_exists boolean;
begin
  if v_target.id = v_me then
    perform private.fail(400, 'cannot_follow_self', 'You cannot follow yourself');
  end if;
  v_exists := exists (select 1 from public.follows f where f.follower_id = v_me and f.followee_id = v_target.id);
  if coalesce(p_follow, not v_exists) then
    perform private.refuse_if_blocked_with(v_target.id);
    insert into public.follows (follower_id, followee_id) values (v_me, v_target.id) on conflict do nothing;
  else
    delete from public.follows f where f.follower_id = v_me and f.followee_id = v_target.id;
  end if;
  return jsonb_build_object(
    'state', private.follow_state(v_me, v_target.id),
    'user', private.profile_json((select p from public.profiles p where p.id = v_target.id), v_me));
end;
$$;
revoke execute on function public.follow(text, boolean) from public;
grant execute on function public.follow(text, boolean) to authenticated, service_role;

create or replace function public.set_close_friend(p_username text, p_close boolean default null)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_me uuid := private.require_uid();
  v_friend public.profiles := private.find_user(p_username);
  v_exists boolean;
begin
  if v_friend.id = v_me then
    perform private.fail(400, 'cannot_befriend_self', 'You cannot be your own close friend');
  end if;
  v_exists := exists (select 1 from public.close_friends c where c.owner_id = v_me and c.friend_id = v_friend.id);
  if coalesce(p_close, not v_exists) then
    perform private.refuse_if_blocked_with(v_friend.id);
    insert into public.close_friends (owner_id, friend_id) values (v_me, v_friend.id) on conflict do nothing;
  else
    delete from public.close_friends c where c.owner_id = v_me and c.friend_id = v_friend.id;
  end if;
  return jsonb_build_object(
    'close_friend', coalesce(p_close, not v_exists),
    'user', private.profile_json(v_friend, v_me));
end;
$$;
revoke execute on function public.set_close_friend(text, boolean) from public;
grant execute on function public.set_close_friend(text, boolean) to authenticated, service_role;

-- A banned account is invisible to everyone but admins, its relations too: the other party of a follow or
-- a close-friend entry no longer reads the row while the ban lasts (it is back on unban).
drop policy "parties, and viewers of both accounts' lists, read follows" on public.follows;
create policy "parties, and viewers of both accounts' lists, read follows" on public.follows
for select to anon, authenticated
using (
  (select private.is_admin())
  or (select private.uid()) = follower_id and private.can_see_user((select private.uid()), followee_id)
  or (select private.uid()) = followee_id and private.can_see_user((select private.uid()), follower_id)
  or status = 'accepted'
     and private.can_see_user((select private.uid()), follower_id)
     and private.can_see_user((select private.uid()), followee_id)
     and private.can_see_activity_of((select private.uid()), followee_id)
     and private.can_see_activity_of((select private.uid()), follower_id)
);

drop policy "owners read their close friends" on public.close_friends;
create policy "owners read their close friends" on public.close_friends
for select to authenticated
using (
  (select private.is_admin())
  or owner_id = (select private.uid()) and private.can_see_user((select private.uid()), friend_id)
);
