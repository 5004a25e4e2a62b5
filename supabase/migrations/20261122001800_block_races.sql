-- Blocks against racing follows and close-friend entries, and the small fixes of the block functions.

-- Follows, close-friend entries and blocks between two accounts are serialized on the pair (a transaction
-- lock), so a follow racing a block cannot outlive it: whichever commits second sees the other.
create function private.lock_pair(p_a uuid, p_b uuid)
returns void
language sql
volatile
set search_path = ''
as $$
  select pg_advisory_xact_lock(hashtextextended(least(p_a, p_b)::text || greatest(p_a, p_b)::text, 0))
$$;
revoke execute on function private.lock_pair(uuid, uuid) from public;

-- A new follow or close-friend entry waits for any block between the pair, then is refused if one exists.
-- (The insert policies check the same, but with a snapshot that cannot see a block committed meanwhile.)
create function private.refuse_if_blocked(p_a uuid, p_b uuid)
returns void
language plpgsql
volatile
set search_path = ''
as $$
begin
  perform private.lock_pair(p_a, p_b);
  if exists (
    select 1 from public.blocks b
    where (b.blocker_id = p_a and b.blocked_id = p_b) or (b.blocker_id = p_b and b.blocked_id = p_a)
  ) then
    perform private.fail(404, 'user_not_found', 'No such user');
  end if;
end;
$$;
revoke execute on function private.refuse_if_blocked(uuid, uuid) from public;

-- A new follow: accepted at once for a public account, a request for a private one. The status is the
-- database's decision, whatever a client sends.
create or replace function private.decide_follow_status()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform private.refuse_if_blocked(new.follower_id, new.followee_id);
  new.status := case
    when (select p.is_private from public.profiles p where p.id = new.followee_id) then 'pending'
    else 'accepted'
  end::public.follow_status;
  new.since := now();
  return new;
end;
$$;
revoke execute on function private.decide_follow_status() from public;

create function private.check_close_friend_insert()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform private.refuse_if_blocked(new.owner_id, new.friend_id);
  return new;
end;
$$;
revoke execute on function private.check_close_friend_insert() from public;

create trigger check_close_friend_insert
before insert on public.close_friends
for each row execute function private.check_close_friend_insert();

-- Blocking ends every follow, request and close-friend entry between the two, both ways.
create or replace function private.apply_block()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform private.lock_pair(new.blocker_id, new.blocked_id);
  delete from public.follows f
  where (f.follower_id = new.blocker_id and f.followee_id = new.blocked_id)
     or (f.follower_id = new.blocked_id and f.followee_id = new.blocker_id);
  delete from public.close_friends c
  where (c.owner_id = new.blocker_id and c.friend_id = new.blocked_id)
     or (c.owner_id = new.blocked_id and c.friend_id = new.blocker_id);
  return new;
end;
$$;
revoke execute on function private.apply_block() from public;

create or replace function public.block(p_username text, p_block boolean default null)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_me uuid := private.require_uid();
  v_target uuid := private.blocked_by_caller(p_username);
  v_blocking boolean := v_target is not null;
begin
  if v_target is null then
    v_target := (private.find_user(p_username)).id;
  end if;
  if v_target = v_me then
    perform private.fail(400, 'cannot_block_self', 'You cannot block yourself');
  end if;
  if coalesce(p_block, not v_blocking) then
    -- Blocking again is a no-op: the insert policy refuses a row about someone the caller already blocks.
    if not v_blocking then
      insert into public.blocks (blocker_id, blocked_id) values (v_me, v_target) on conflict do nothing;
    end if;
    v_blocking := true;
  else
    delete from public.blocks b where b.blocker_id = v_me and b.blocked_id = v_target;
    v_blocking := false;
  end if;
  return jsonb_build_object('blocked', v_blocking, 'user', jsonb_build_object('id', v_target, 'username', lower(btrim(p_username))));
end;
$$;
revoke execute on function public.block(text, boolean) from public;
grant execute on function public.block(text, boolean) to authenticated, service_role;
comment on function public.block(text, boolean) is 'Block or unblock; p_block null toggles. Blocking ends follows and close-friend entries both ways.';

create or replace function private.blocks_page(p_cursor text, p_limit integer)
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_me uuid := private.uid();
  v_limit integer := private.page_limit(p_limit);
  v_after record := private.decode_cursor(p_cursor);
  v_rows jsonb;
begin
  select coalesce(jsonb_agg(jsonb_build_object('at', x.created_at, 'id', x.blocked_id,
           'item', private.author_json(x.blocked_id) || jsonb_build_object('since', x.created_at))
         order by x.created_at desc, x.blocked_id desc), '[]'::jsonb)
  into v_rows
  from (
    select b.created_at, b.blocked_id from public.blocks b
    join public.profiles p on p.id = b.blocked_id
    where b.blocker_id = v_me
      and p.banned_at is null -- a banned account is invisible to everyone but admins, even in this list
      and (v_after.at is null or (b.created_at, b.blocked_id) < (v_after.at, v_after.id))
    order by b.created_at desc, b.blocked_id desc
    limit v_limit + 1
  ) x;
  return private.to_page(v_rows, v_limit);
end;
$$;
revoke execute on function private.blocks_page(text, integer) from public;
grant execute on function private.blocks_page(text, integer) to authenticated, service_role;
