-- Follows and follow requests, close friends, blocks.

create type public.follow_status as enum ('pending', 'accepted');

create table public.follows (
  follower_id uuid not null default private.uid() references public.profiles (id) on delete cascade,
  followee_id uuid not null references public.profiles (id) on delete cascade,
  status public.follow_status not null default 'pending',
  since timestamptz not null default now(),
  primary key (follower_id, followee_id),
  check (follower_id <> followee_id)
);
alter table public.follows enable row level security;
create index follows_followee_idx on public.follows (followee_id, status, since desc, follower_id);
create index follows_follower_idx on public.follows (follower_id, status, since desc, followee_id);

comment on table public.follows is 'follower → followee. Pending rows are follow requests to a private account.';
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
create index close_friends_owner_idx on public.close_friends (owner_id, created_at desc, friend_id);
create index close_friends_friend_idx on public.close_friends (friend_id);

comment on table public.close_friends is 'One-sided list an account keeps; members are neither asked nor told.';

create table public.blocks (
  blocker_id uuid not null default private.uid() references public.profiles (id) on delete cascade,
  blocked_id uuid not null references public.profiles (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (blocker_id, blocked_id),
  check (blocker_id <> blocked_id)
);
alter table public.blocks enable row level security;
create index blocks_blocker_idx on public.blocks (blocker_id, created_at desc, blocked_id);
create index blocks_blocked_idx on public.blocks (blocked_id, blocker_id);

comment on table public.blocks is 'blocker → blocked. Either direction makes each side invisible to the other.';

-- A new follow: accepted at once for a public account, a request for a private one. The status is the
-- database's decision, whatever a client sends.
create function private.decide_follow_status()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  new.status := case
    when (select p.is_private from public.profiles p where p.id = new.followee_id) then 'pending'
    else 'accepted'
  end::public.follow_status;
  new.since := now();
  return new;
end;
$$;
revoke execute on function private.decide_follow_status() from public;

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
  if new.follower_id <> old.follower_id or new.followee_id <> old.followee_id
     or not (old.status = 'pending' and new.status = 'accepted') then
    perform private.fail(400, 'invalid_transition', 'Only a pending follow request can be accepted');
  end if;
  new.since := now();
  return new;
end;
$$;
revoke execute on function private.check_follow_update() from public;

create trigger check_follow_update
before update on public.follows
for each row execute function private.check_follow_update();

-- Blocking ends every follow, request and close-friend entry between the two, both ways.
create function private.apply_block()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
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

create trigger accept_requests_when_public
after update of is_private on public.profiles
for each row
when (old.is_private and not new.is_private)
execute function private.accept_requests_when_public();
