-- API: profiles and relationships (follow, requests, followers, close friends, blocks, reports of users).
-- Toggles take an optional desired state (null = toggle) so that a retried request is idempotent, and
-- answer with the resulting state and the other account as the caller now sees it.

create function public.get_profile(p_username text)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
begin
  return private.profile_item((private.find_user(p_username)).id);
end;
$$;
revoke execute on function public.get_profile(text) from public;
grant execute on function public.get_profile(text) to anon, authenticated, service_role;
comment on function public.get_profile(text) is 'A visible profile with counts and the caller''s relation to it; 404 otherwise.';

create function private.follow_state(p_follower uuid, p_followee uuid)
returns text
language sql
stable
set search_path = ''
as $$
  select coalesce(
    (select case f.status when 'accepted' then 'following' else 'requested' end
     from public.follows f where f.follower_id = p_follower and f.followee_id = p_followee),
    'none')
$$;
revoke execute on function private.follow_state(uuid, uuid) from public;
grant execute on function private.follow_state(uuid, uuid) to authenticated, service_role;
comment on function private.follow_state(uuid, uuid) is 'following, requested or none: where p_follower stands towards p_followee.';

create function public.follow(p_username text, p_follow boolean default null)
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
    'user', private.profile_item(v_target.id));
end;
$$;
revoke execute on function public.follow(text, boolean) from public;
grant execute on function public.follow(text, boolean) to authenticated, service_role;
comment on function public.follow(text, boolean) is
  'Follow (a request, for a private account) or unfollow/withdraw. p_follow null toggles. Returns state: following, requested or none.';

create function public.respond_follow_request(p_username text, p_accept boolean)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_me uuid := private.require_uid();
  v_requester public.profiles := private.find_user(p_username);
begin
  if p_accept is null then
    perform private.fail(400, 'invalid_value', 'Say whether to accept (true) or decline (false)');
  end if;
  if p_accept then
    update public.follows f set status = 'accepted'
    where f.follower_id = v_requester.id and f.followee_id = v_me and f.status = 'pending';
  else
    delete from public.follows f
    where f.follower_id = v_requester.id and f.followee_id = v_me and f.status = 'pending';
  end if;
  if not found then
    perform private.fail(404, 'request_not_found', format('No pending follow request from @%s', v_requester.username));
  end if;
  return jsonb_build_object(
    'state', case when p_accept then 'accepted' else 'declined' end,
    'user', private.profile_item(v_requester.id));
end;
$$;
revoke execute on function public.respond_follow_request(text, boolean) from public;
grant execute on function public.respond_follow_request(text, boolean) to authenticated, service_role;
comment on function public.respond_follow_request(text, boolean) is 'Accept or decline a pending follow request made to the caller.';

create function public.remove_follower(p_username text)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_me uuid := private.require_uid();
  v_follower public.profiles := private.find_user(p_username);
begin
  delete from public.follows f where f.follower_id = v_follower.id and f.followee_id = v_me;
  if not found then
    perform private.fail(404, 'not_a_follower', format('@%s does not follow you', v_follower.username));
  end if;
  return jsonb_build_object(
    'removed', true,
    'user', private.profile_item(v_follower.id));
end;
$$;
revoke execute on function public.remove_follower(text) from public;
grant execute on function public.remove_follower(text) to authenticated, service_role;
comment on function public.remove_follower(text) is 'Stop someone following the caller (their pending request goes too).';

-- followers / following / requests: profiles with the time the relation was made, newest first. One branch
-- per list, each served in list order by its partial index (a status test cannot serve as an index condition
-- under RLS: enum equality is not leakproof, but it does select a partial index); only the asked branch runs.
-- Each row's profile is a subquery, not a join, so the planner keeps walking the index and stops at the limit
-- (a visible follow row implies a visible account: the profile is never missing).
create function private.follow_page(p_owner uuid, p_list text, p_cursor text, p_limit integer)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_limit integer := private.page_limit(p_limit);
  v_after record := private.decode_cursor(p_cursor);
  v_rows jsonb;
begin
  select coalesce(jsonb_agg(jsonb_build_object('at', x.since, 'id', x.other,
           'item', (select i.item from private.profile_items i where i.id = x.other) || jsonb_build_object('since', x.since))
         order by x.since desc, x.other desc), '[]'::jsonb)
  into v_rows
  from (
    (select f.since, f.follower_id as other from public.follows f
     where p_list = 'followers' and f.followee_id = p_owner and f.status = 'accepted'
       and (f.since, f.follower_id) < (v_after.at, v_after.id)
     order by f.since desc, f.follower_id desc limit v_limit + 1)
    union all
    (select f.since, f.follower_id from public.follows f
     where p_list = 'requests' and f.followee_id = p_owner and f.status = 'pending'
       and (f.since, f.follower_id) < (v_after.at, v_after.id)
     order by f.since desc, f.follower_id desc limit v_limit + 1)
    union all
    (select f.since, f.followee_id from public.follows f
     where p_list = 'following' and f.follower_id = p_owner and f.status = 'accepted'
       and (f.since, f.followee_id) < (v_after.at, v_after.id)
     order by f.since desc, f.followee_id desc limit v_limit + 1)
  ) x;
  return private.to_page(v_rows, v_limit);
end;
$$;
revoke execute on function private.follow_page(uuid, text, text, integer) from public;
grant execute on function private.follow_page(uuid, text, text, integer) to anon, authenticated, service_role;
comment on function private.follow_page(uuid, text, text, integer) is
  'A page of the owner''s followers, follow requests or followed accounts (p_list), newest first.';

create function public.followers(p_username text, p_cursor text default null, p_limit integer default null)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_owner public.profiles := private.find_user(p_username);
begin
  perform private.require_activity_visible(v_owner);
  return private.follow_page(v_owner.id, 'followers', p_cursor, p_limit);
end;
$$;
revoke execute on function public.followers(text, text, integer) from public;
grant execute on function public.followers(text, text, integer) to anon, authenticated, service_role;
comment on function public.followers(text, text, integer) is 'Accepted followers visible to the caller, newest first.';

create function public.following(p_username text, p_cursor text default null, p_limit integer default null)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_owner public.profiles := private.find_user(p_username);
begin
  perform private.require_activity_visible(v_owner);
  return private.follow_page(v_owner.id, 'following', p_cursor, p_limit);
end;
$$;
revoke execute on function public.following(text, text, integer) from public;
grant execute on function public.following(text, text, integer) to anon, authenticated, service_role;
comment on function public.following(text, text, integer) is 'Accounts followed, visible to the caller, newest first.';

create function public.follow_requests(p_cursor text default null, p_limit integer default null)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select private.follow_page(private.require_uid(), 'requests', p_cursor, p_limit)
$$;
revoke execute on function public.follow_requests(text, integer) from public;
grant execute on function public.follow_requests(text, integer) to authenticated, service_role;
comment on function public.follow_requests(text, integer) is 'Pending follow requests made to the caller, newest first.';

-- close friends ----------------------------------------------------------------------------------------
create function public.set_close_friend(p_username text, p_close boolean default null)
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
    'user', private.profile_item(v_friend.id));
end;
$$;
revoke execute on function public.set_close_friend(text, boolean) from public;
grant execute on function public.set_close_friend(text, boolean) to authenticated, service_role;
comment on function public.set_close_friend(text, boolean) is 'Add or remove a close friend; p_close null toggles.';

create function public.close_friends(p_cursor text default null, p_limit integer default null)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_me uuid := private.require_uid();
  v_limit integer := private.page_limit(p_limit);
  v_after record := private.decode_cursor(p_cursor);
  v_rows jsonb;
begin
  select coalesce(jsonb_agg(jsonb_build_object('at', x.created_at, 'id', x.friend_id,
           'item', x.profile || jsonb_build_object('since', x.created_at))
         order by x.created_at desc, x.friend_id desc), '[]'::jsonb)
  into v_rows
  from (
    select c.created_at, c.friend_id, (select i.item from private.profile_items i where i.id = c.friend_id) as profile
    from public.close_friends c
    where c.owner_id = v_me
      and (c.created_at, c.friend_id) < (v_after.at, v_after.id)
    order by c.created_at desc, c.friend_id desc
    limit v_limit + 1
  ) x;
  return private.to_page(v_rows, v_limit);
end;
$$;
revoke execute on function public.close_friends(text, integer) from public;
grant execute on function public.close_friends(text, integer) to authenticated, service_role;
comment on function public.close_friends(text, integer) is 'The caller''s close friends, newest first.';

-- blocks -----------------------------------------------------------------------------------------------
-- Someone the caller blocked is invisible to them, so blocks are looked up and listed by a definer helper
-- that only ever answers about the caller's own blocks.
create function private.blocked_by_caller(p_username text)
returns uuid
language sql
stable
security definer
set search_path = ''
as $$
  select p.id from public.profiles p
  join public.blocks b on b.blocked_id = p.id and b.blocker_id = private.uid()
  where p.username = lower(btrim(p_username))
$$;
revoke execute on function private.blocked_by_caller(text) from public;
grant execute on function private.blocked_by_caller(text) to authenticated, service_role;
comment on function private.blocked_by_caller(text) is 'The id of the account of that username if the caller blocked it; else null.';

create function public.block(p_username text, p_block boolean default null)
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

-- The accounts the caller blocked, with their cards, read as the definer: RLS hides them from the caller. A
-- banned account is invisible to everyone but admins, even here. Blocks are few (a write limit caps them).
create function private.my_blocks()
returns table (blocked_id uuid, card jsonb, since timestamptz)
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  return query
    select b.blocked_id, a.card, b.created_at from public.blocks b
    join public.profiles p on p.id = b.blocked_id
    join private.cards a on a.id = b.blocked_id
    where b.blocker_id = private.uid() and p.banned_at is null;
end;
$$;
revoke execute on function private.my_blocks() from public;
grant execute on function private.my_blocks() to authenticated, service_role;
comment on function private.my_blocks() is 'The accounts the caller blocked (banned ones left out), with their cards.';

create function private.blocks_page(p_cursor text, p_limit integer)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_limit integer := private.page_limit(p_limit);
  v_after record := private.decode_cursor(p_cursor);
  v_rows jsonb;
begin
  select coalesce(jsonb_agg(jsonb_build_object('at', x.since, 'id', x.blocked_id, 'item', x.card || jsonb_build_object('since', x.since))
         order by x.since desc, x.blocked_id desc), '[]'::jsonb)
  into v_rows
  from (
    select b.since, b.blocked_id, b.card from private.my_blocks() b
    where (b.since, b.blocked_id) < (v_after.at, v_after.id)
    order by b.since desc, b.blocked_id desc
    limit v_limit + 1
  ) x;
  return private.to_page(v_rows, v_limit);
end;
$$;
revoke execute on function private.blocks_page(text, integer) from public;
grant execute on function private.blocks_page(text, integer) to authenticated, service_role;
comment on function private.blocks_page(text, integer) is 'A page of the accounts the caller blocked (banned ones left out), newest first.';

create function public.blocks(p_cursor text default null, p_limit integer default null)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select case when private.require_uid() is not null then private.blocks_page(p_cursor, p_limit) end
$$;
revoke execute on function public.blocks(text, integer) from public;
grant execute on function public.blocks(text, integer) to authenticated, service_role;
comment on function public.blocks(text, integer) is 'Accounts the caller blocked, newest first.';

-- reports ----------------------------------------------------------------------------------------------
create function private.file_report(
  p_type public.report_target, p_user uuid, p_post uuid, p_comment uuid, p_reason text
)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_report public.reports;
begin
  perform private.require_uid();
  insert into public.reports (target_type, target_user_id, target_post_id, target_comment_id, reason)
  values (p_type, p_user, p_post, p_comment, btrim(coalesce(p_reason, '')))
  returning * into v_report;
  return jsonb_build_object('id', v_report.id, 'target_type', v_report.target_type, 'created_at', v_report.created_at);
exception
  when unique_violation then
    perform private.fail(409, 'already_reported', 'You already reported this; an admin will look at it');
    return null;
  when check_violation then
    perform private.fail(400, 'invalid_reason', 'Give a reason of 1 to 1000 characters (and do not report yourself)');
    return null;
end;
$$;
revoke execute on function private.file_report(public.report_target, uuid, uuid, uuid, text) from public;
grant execute on function private.file_report(public.report_target, uuid, uuid, uuid, text) to authenticated, service_role;
comment on function private.file_report(public.report_target, uuid, uuid, uuid, text) is
  'Files the caller''s report of a user, post or comment; 409 when already reported, 400 for a bad reason.';

create function public.report_user(p_username text, p_reason text)
returns jsonb
language sql
volatile
set search_path = ''
as $$
  select private.file_report('user', (private.find_user(p_username)).id, null, null, p_reason)
$$;
revoke execute on function public.report_user(text, text) from public;
grant execute on function public.report_user(text, text) to authenticated, service_role;
comment on function public.report_user(text, text) is 'Report a user to the admins; one open report per reporter per user.';
