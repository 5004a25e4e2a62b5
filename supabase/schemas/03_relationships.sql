-- Follows and follow requests, close friends, blocks, and the rules between them: a follow's status is the
-- database's decision, and a block ends every relation between the two accounts and refuses new ones.

create type public.follow_status as enum ('pending', 'accepted');

comment on type public.follow_status is 'pending (a request to a private account) or accepted.';

create table public.follows (
  follower_id uuid not null default private.uid() references public.profiles (id) on delete cascade,
  followee_id uuid not null references public.profiles (id) on delete cascade,
  status public.follow_status not null default 'pending',
  since timestamptz not null default now(),
  primary key (follower_id, followee_id),
  check (follower_id <> followee_id)
);
alter table public.follows enable row level security;
-- Each list in its order, (since desc, other id desc), so a page reads its rows in order and stops at its
-- limit: followers, follow requests, following (partial: private.follow_page says why). The primary key
-- serves the follower's side otherwise; follows_followee_idx the followee's (deletes, recounts).
create index follows_followers_idx on public.follows (followee_id, since desc, follower_id desc) where status = 'accepted';
create index follows_requests_idx on public.follows (followee_id, since desc, follower_id desc) where status = 'pending';
create index follows_following_idx on public.follows (follower_id, since desc, followee_id desc) where status = 'accepted';
create index follows_followee_idx on public.follows (followee_id);

comment on table public.follows is 'follower → followee. Pending rows are follow requests to a private account.';
comment on column public.follows.follower_id is 'Who follows (or asks to); the caller by default.';
comment on column public.follows.followee_id is 'Who is followed.';
comment on column public.follows.status is 'pending (a request to a private account) or accepted.';
comment on column public.follows.since is 'When the row reached its status: the request, or the acceptance.';

create table public.close_friends (
  owner_id uuid not null default private.uid() references public.profiles (id) on delete cascade,
  friend_id uuid not null references public.profiles (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (owner_id, friend_id),
  check (owner_id <> friend_id)
);
alter table public.close_friends enable row level security;
create index close_friends_owner_idx on public.close_friends (owner_id, created_at desc, friend_id desc);
create index close_friends_friend_idx on public.close_friends (friend_id);

comment on table public.close_friends is 'One-sided list an account keeps; members are neither asked nor told.';
comment on column public.close_friends.owner_id is 'Whose list; the caller by default.';
comment on column public.close_friends.friend_id is 'The account on the list.';
comment on column public.close_friends.created_at is 'When the account was added.';

create table public.blocks (
  blocker_id uuid not null default private.uid() references public.profiles (id) on delete cascade,
  blocked_id uuid not null references public.profiles (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (blocker_id, blocked_id),
  check (blocker_id <> blocked_id)
);
alter table public.blocks enable row level security;
create index blocks_blocker_idx on public.blocks (blocker_id, created_at desc, blocked_id desc);
create index blocks_blocked_idx on public.blocks (blocked_id, blocker_id);

comment on table public.blocks is 'blocker → blocked. Either direction makes each side invisible to the other.';
comment on column public.blocks.blocker_id is 'Who blocks; the caller by default.';
comment on column public.blocks.blocked_id is 'Who is blocked.';
comment on column public.blocks.created_at is 'When the block was made.';

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
comment on function private.lock_pair(uuid, uuid) is 'Takes the transaction lock of a pair of accounts (either order).';

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
comment on function private.blocked_between(uuid, uuid) is
  'Whether either account blocks the other, once any block being written between them has committed.';

-- For the insert triggers: the error row-level security raises for the table.
create function private.refuse_row_if_blocked(p_a uuid, p_b uuid, p_table text)
returns void
language plpgsql
volatile
set search_path = ''
as $$
begin
  if private.blocked_between(p_a, p_b) then
    -- A session without a user (Studio, the SQL editor) bypasses row-level security: it is told plainly.
    if private.uid() is null then
      perform private.fail(409, 'across_block', format(
        'A block stands between these two accounts: no row of %s may join them (delete the block first)', p_table));
    end if;
    raise exception using errcode = '42501',
      message = format('new row violates row-level security policy for table "%s"', p_table);
  end if;
end;
$$;
revoke execute on function private.refuse_row_if_blocked(uuid, uuid, text) from public;
comment on function private.refuse_row_if_blocked(uuid, uuid, text) is
  'Raises the row-level security error of p_table when a block stands between the two accounts (to a session without a user, 409 across_block).';

-- For the API functions, which answer 404 for an account the caller may not see: a block between the caller
-- and p_other committed since the function looked the account up. Called directly, it answers the same 404
-- for any account the caller may not see (banned, unconfirmed, unknown), so it tells nobody which it is.
create function private.refuse_if_blocked_with(p_other uuid)
returns void
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_me uuid := private.uid();
begin
  if private.blocked_between(v_me, p_other)
     or not coalesce((select private.may_see_profile(p, v_me) from public.profiles p where p.id = p_other), false) then
    perform private.fail(404, 'user_not_found', 'No such user');
  end if;
end;
$$;
revoke execute on function private.refuse_if_blocked_with(uuid) from public;
grant execute on function private.refuse_if_blocked_with(uuid) to authenticated, service_role;
comment on function private.refuse_if_blocked_with(uuid) is 'Raises 404 when a block stands between the caller and p_other.';

-- A new follow: accepted at once for a public account, a request for a private one. The status is the
-- database's decision, whatever a client sends. No follow is made across a block.
create function private.decide_follow_status()
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
comment on function private.decide_follow_status() is
  'Trigger: refuses a follow across a block; accepted for a public account, pending for a private one.';

create trigger decide_follow_status
before insert on public.follows
for each row execute function private.decide_follow_status();

-- Only pending → accepted is a valid change of a follow; it restarts `since`.
create function private.check_follow_update()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  -- A follow moved to another pair is refused by private.refuse_row_move (32_direct_edit_guards.sql).
  if (new.follower_id, new.followee_id) is distinct from (old.follower_id, old.followee_id) then
    return new;
  end if;
  if not (old.status = 'pending' and new.status = 'accepted') then
    perform private.fail(400, 'invalid_transition', 'Only a pending follow request can be accepted');
  end if;
  new.since := now();
  return new;
end;
$$;
revoke execute on function private.check_follow_update() from public;
comment on function private.check_follow_update() is 'Trigger: allows only accepting a pending follow request.';

create trigger check_follow_update
before update on public.follows
for each row execute function private.check_follow_update();

-- No close-friend entry is made across a block either.
create function private.check_close_friend_insert()
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
comment on function private.check_close_friend_insert() is 'Trigger: refuses a close-friend entry across a block.';

create trigger check_close_friend_insert
before insert on public.close_friends
for each row execute function private.check_close_friend_insert();

-- Blocking ends every follow, request and close-friend entry between the two, both ways.
create function private.apply_block()
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
comment on function private.apply_block() is 'Trigger: a new block ends the follows, requests and close-friend entries of the pair.';

create trigger apply_block
after insert on public.blocks
for each row execute function private.apply_block();

-- An account that turns public accepts its pending requests.
create function private.accept_requests_when_public()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  update public.follows f set status = 'accepted'
  where f.followee_id = new.id and f.status = 'pending';
  return new;
end;
$$;
revoke execute on function private.accept_requests_when_public() from public;
comment on function private.accept_requests_when_public() is 'Trigger: an account turning public accepts its pending follow requests.';

create trigger accept_requests_when_public
after update of is_private on public.profiles
for each row
when (old.is_private and not new.is_private)
execute function private.accept_requests_when_public();
