-- The baseline: the whole database schema in one migration, generated from supabase/schemas/ by concatenating
-- its files in the order of schema_paths in supabase/config.toml, each after a line naming it. Never edit this
-- file: a schema change is made in supabase/schemas/ and shipped as a new migration.

-- supabase/schemas/00_schemas_and_privileges.sql
-- Schemas and default privileges. `public` is what PostgREST exposes; `private` holds what clients must never
-- call directly (security definer helpers, trigger functions, admin membership, reference tables).

create schema if not exists private;
revoke all on schema private from public;
grant usage on schema private to anon, authenticated, service_role;

comment on schema private is 'Helpers and tables that the Data API does not expose.';

-- Nothing this schema creates is usable by a role until a statement here grants it, whatever the project's
-- defaults (older hosted projects grant every new table and function in public to anon and authenticated,
-- which would override the column grants that keep counters and authors read-only). Default privileges apply
-- to objects of the role that creates them, postgres. EXECUTE for PUBLIC is revoked globally, so in every
-- schema: a per-schema revoke cannot undo Postgres's built-in global grant.
alter default privileges for role postgres revoke execute on functions from public;
alter default privileges for role postgres in schema public revoke all on tables from anon, authenticated, service_role;
alter default privileges for role postgres in schema public revoke all on sequences from anon, authenticated, service_role;
alter default privileges for role postgres in schema public revoke all on functions from anon, authenticated, service_role;

-- supabase/schemas/01_identity.sql
-- Who is calling, and whether they are an admin; plus the small helpers every API function uses
-- (errors, pagination cursors and limits).

-- The caller, as long as the token's session still exists and the account is not banned. A signed-out
-- or banned user's token thus stops working at once for PostgREST, the facade and RLS alike, not at
-- the token's expiry.
create function private.uid()
returns uuid
language sql
stable
security definer
set search_path = ''
as $$
  select s.user_id
  from auth.sessions s
  join auth.users u on u.id = s.user_id
  where s.id = (nullif(auth.jwt() ->> 'session_id', ''))::uuid
    and s.user_id = auth.uid()
    and (s.not_after is null or s.not_after > now())
    and (u.banned_until is null or u.banned_until <= now())
    and u.deleted_at is null
$$;
revoke execute on function private.uid() from public;
grant execute on function private.uid() to anon, authenticated, service_role;
comment on function private.uid() is 'The calling user while their session is alive and they are not banned; else null.';

-- Admin membership is granted only here (SQL editor, Studio, or `npm run grant-admin`), never by a user.
create table private.admins (
  user_id uuid primary key references auth.users (id) on delete cascade,
  granted_at timestamptz not null default now(),
  note text not null default '' check (char_length(note) <= 200)
);
alter table private.admins enable row level security;

comment on table private.admins is 'Users with admin rights. Effective and revocable at once.';

create function private.is_admin()
returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select exists (select 1 from private.admins a where a.user_id = private.uid())
$$;
revoke execute on function private.is_admin() from public;
grant execute on function private.is_admin() to anon, authenticated, service_role;
comment on function private.is_admin() is 'Whether the caller (private.uid()) is an admin.';

-- Raises one of the errors of supabase/ERRORS.md: SQLSTATE PT<status>, the stable code in HINT.
create function private.fail(p_status integer, p_code text, p_message text)
returns void
language plpgsql
immutable
set search_path = ''
as $$
begin
  raise exception using errcode = 'PT' || p_status::text, message = p_message, hint = p_code;
end;
$$;
revoke execute on function private.fail(integer, text, text) from public;
grant execute on function private.fail(integer, text, text) to anon, authenticated, service_role;
comment on function private.fail(integer, text, text) is 'Raises an API error: SQLSTATE PT<p_status>, p_message, and p_code as the hint.';

-- The caller, or 401 when there is none (no token, signed out, banned).
create function private.require_uid()
returns uuid
language plpgsql
stable
set search_path = ''
as $$
declare
  v_uid uuid := private.uid();
begin
  if v_uid is null then
    perform private.fail(401, 'unauthorized', 'Sign in first (or your session has ended)');
  end if;
  return v_uid;
end;
$$;
revoke execute on function private.require_uid() from public;
grant execute on function private.require_uid() to anon, authenticated, service_role;
comment on function private.require_uid() is 'The caller''s id; raises 401 when there is none.';

create function private.require_admin()
returns uuid
language plpgsql
stable
set search_path = ''
as $$
declare
  v_uid uuid := private.require_uid();
begin
  if not private.is_admin() then
    -- Admin paths exist for everyone to see, so this 403 leaks nothing.
    perform private.fail(403, 'admin_only', 'Only admins may do this');
  end if;
  return v_uid;
end;
$$;
revoke execute on function private.require_admin() from public;
grant execute on function private.require_admin() to authenticated, service_role;
comment on function private.require_admin() is 'The caller''s id; raises 401 without a caller and 403 unless they are an admin.';

-- Keyset pagination: an opaque cursor naming the last row of a page by (time, id).
create function private.encode_cursor(p_at timestamptz, p_id uuid)
returns text
language sql
immutable
set search_path = ''
as $$
  select translate(
    encode(convert_to(((extract(epoch from p_at) * 1000000)::bigint)::text || '.' || p_id::text, 'UTF8'), 'base64'),
    E'+/=\n', '-_')
$$;
revoke execute on function private.encode_cursor(timestamptz, uuid) from public;
grant execute on function private.encode_cursor(timestamptz, uuid) to anon, authenticated, service_role;
comment on function private.encode_cursor(timestamptz, uuid) is 'The opaque page cursor naming the row (p_at, p_id).';

create function private.decode_cursor(p_cursor text, out at timestamptz, out id uuid)
language plpgsql
immutable
set search_path = ''
as $$
declare
  v_text text;
  v_padded text;
begin
  if p_cursor is null then
    return;
  end if;
  begin
    v_padded := translate(p_cursor, '-_', '+/');
    v_padded := v_padded || repeat('=', (4 - length(v_padded) % 4) % 4);
    v_text := convert_from(decode(v_padded, 'base64'), 'UTF8');
    at := timestamptz 'epoch' + split_part(v_text, '.', 1)::bigint * interval '1 microsecond';
    id := split_part(v_text, '.', 2)::uuid;
  exception when others then
    perform private.fail(400, 'invalid_cursor', 'The cursor is not one this API returned');
  end;
end;
$$;
revoke execute on function private.decode_cursor(text) from public;
grant execute on function private.decode_cursor(text) to anon, authenticated, service_role;
comment on function private.decode_cursor(text) is 'The (at, id) a cursor names; nulls for a null cursor; 400 for one this API did not make.';

create function private.page_limit(p_limit integer)
returns integer
language plpgsql
immutable
set search_path = ''
as $$
begin
  if p_limit is null then
    return 20;
  end if;
  if p_limit < 1 or p_limit > 100 then
    perform private.fail(400, 'invalid_limit', 'limit must be between 1 and 100');
  end if;
  return p_limit;
end;
$$;
revoke execute on function private.page_limit(integer) from public;
grant execute on function private.page_limit(integer) to anon, authenticated, service_role;
comment on function private.page_limit(integer) is 'A page size: 20 when null; 400 outside 1..100.';

-- supabase/schemas/02_profiles.sql
-- Profiles: the public face of an account, one per Supabase Auth user (made by the sign-up trigger on
-- auth.users), and the rules of their values: real time zone names, storage paths, free usernames.

-- The IANA time zone names an account may choose, copied from Postgres's own list when the schema is applied.
-- Postgres would also accept POSIX strings such as 'XYZ-167' (an offset of 167 hours) in `at time zone`,
-- which would let an author date a post a week away from today; only real zone names are allowed.
create table private.time_zones (
  name text primary key
);
alter table private.time_zones enable row level security;
insert into private.time_zones (name)
select t.name from pg_catalog.pg_timezone_names t
where t.name !~ '^(posix|right)/' and t.name not in ('localtime', 'posixrules', 'Factory');

comment on table private.time_zones is 'IANA time zone names (Europe/Paris, UTC…) accepted for profiles.time_zone.';

create function private.is_time_zone(p_name text)
returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select exists (select 1 from private.time_zones z where z.name = p_name)
$$;
revoke execute on function private.is_time_zone(text) from public;
grant execute on function private.is_time_zone(text) to anon, authenticated, service_role;
comment on function private.is_time_zone(text) is 'True for an IANA time zone name such as Europe/Paris (private.time_zones).';

-- A reference to an object in the project's storage bucket (avatars, post media): a relative path of
-- letters, digits and . _ / -, never a URL (no `javascript:`, no other host) and never climbing with `..`.
create function private.is_storage_path(p_path text)
returns boolean
language sql
immutable
set search_path = ''
as $$
  select char_length(p_path) <= 300 and p_path ~ '^[A-Za-z0-9][A-Za-z0-9._/-]*$' and p_path not like '%..%'
$$;
revoke execute on function private.is_storage_path(text) from public;
grant execute on function private.is_storage_path(text) to anon, authenticated, service_role;
comment on function private.is_storage_path(text) is
  'True for a relative object path in the storage bucket (at most 300 of A-Z a-z 0-9 . _ / -, no ..); null for null.';

-- Fixed first path segments of the API and obvious impostors; nobody may take them as a username.
create table private.reserved_usernames (
  name text primary key check (name = lower(name))
);
alter table private.reserved_usernames enable row level security;
insert into private.reserved_usernames (name) values
  ('admin'), ('administrator'), ('api'), ('auth'), ('blocks'), ('close_friends'), ('comment'), ('comments'),
  ('date'), ('daykeeper'), ('docs'), ('follow_requests'), ('health'), ('help'), ('login'), ('logout'),
  ('me'), ('mod'), ('moderator'), ('null'), ('openapi.json'), ('post'), ('posts'), ('register'),
  ('resetprofilepicture'), ('root'), ('security'), ('staff'), ('supabase'), ('support'), ('system'),
  ('undefined'), ('user'), ('users');

comment on table private.reserved_usernames is 'Usernames nobody may register: API path segments and impostor names.';

-- Display names carry no control characters, and no bidirectional overrides that would make a name read as
-- someone else's.
create table public.profiles (
  id uuid primary key references auth.users (id) on delete cascade,
  username text not null unique check (username ~ '^[a-z0-9._]{3,30}$'),
  display_name text not null default ''
    check (char_length(display_name) <= 50 and display_name !~ '[[:cntrl:]\u200E\u200F\u202A-\u202E\u2066-\u2069]'),
  bio text not null default '' check (char_length(bio) <= 500),
  avatar_url text check (private.is_storage_path(avatar_url)),
  time_zone text not null default 'UTC' check (private.is_time_zone(time_zone)),
  is_private boolean not null default false,
  followers_count integer not null default 0 check (followers_count >= 0),
  following_count integer not null default 0 check (following_count >= 0),
  posts_count integer not null default 0 check (posts_count >= 0),
  confirmed_at timestamptz,
  banned_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
alter table public.profiles enable row level security;
-- The admins' list of banned accounts, in ban order (like banned posts): each page is a keyset read.
create index profiles_banned_idx on public.profiles (banned_at desc, id desc) where banned_at is not null;

comment on table public.profiles is 'The public face of an account. E-mail is not here: only its owner sees it, through Auth.';
comment on column public.profiles.id is 'The Supabase Auth user id; the profile goes with the user.';
comment on column public.profiles.username is 'Unique, 3 to 30 of a-z 0-9 . _ (stored lowercase; input is lowercased).';
comment on column public.profiles.display_name is 'Free text, at most 50 characters; no control or bidirectional override characters.';
comment on column public.profiles.bio is 'Free text, at most 500 characters.';
comment on column public.profiles.avatar_url is 'Path of the avatar in the storage bucket; null means the default avatar.';
comment on column public.profiles.time_zone is 'IANA time zone; fixes the day of each new post.';
comment on column public.profiles.is_private is 'Private accounts show posts, calendar and follow lists to accepted followers only.';
comment on column public.profiles.followers_count is 'Accepted followers (kept by triggers; not writable).';
comment on column public.profiles.following_count is 'Accounts this one follows (kept by triggers; not writable).';
comment on column public.profiles.posts_count is 'Posts written, whatever their privacy (kept by triggers; not writable).';
comment on column public.profiles.confirmed_at is 'When the e-mail was confirmed; unconfirmed accounts are invisible.';
comment on column public.profiles.banned_at is 'Set while an admin bans the account; banned accounts are invisible.';
comment on column public.profiles.created_at is 'When the account signed up.';
comment on column public.profiles.updated_at is 'Last change of the profile row (set by trigger).';

-- Usernames are compared lowercased; reserved and taken names get their own error codes.
create function private.normalize_profile()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  new.username := lower(btrim(new.username));
  if tg_op = 'UPDATE' then
    new.updated_at := now();
    if new.username = old.username then
      return new;
    end if;
  end if;
  if exists (select 1 from private.reserved_usernames r where r.name = new.username) then
    perform private.fail(400, 'username_reserved', format('The username "%s" is reserved', new.username));
  end if;
  if exists (select 1 from public.profiles p where p.username = new.username and p.id <> new.id) then
    perform private.fail(409, 'username_taken', format('The username "%s" is taken', new.username));
  end if;
  return new;
end;
$$;
revoke execute on function private.normalize_profile() from public;
comment on function private.normalize_profile() is
  'Trigger: lowercases the username, refuses reserved and taken ones, stamps updated_at.';

create trigger normalize_profile
before insert or update on public.profiles
for each row execute function private.normalize_profile();

-- supabase/schemas/03_relationships.sql
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
create index follows_followee_idx on public.follows (followee_id, status, since desc, follower_id);
create index follows_follower_idx on public.follows (follower_id, status, since desc, followee_id);

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
create index close_friends_owner_idx on public.close_friends (owner_id, created_at desc, friend_id);
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
create index blocks_blocker_idx on public.blocks (blocker_id, created_at desc, blocked_id);
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
    raise exception using errcode = '42501',
      message = format('new row violates row-level security policy for table "%s"', p_table);
  end if;
end;
$$;
revoke execute on function private.refuse_row_if_blocked(uuid, uuid, text) from public;
comment on function private.refuse_row_if_blocked(uuid, uuid, text) is
  'Raises the row-level security error of p_table when a block stands between the two accounts.';

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
  if new.follower_id <> old.follower_id or new.followee_id <> old.followee_id
     or not (old.status = 'pending' and new.status = 'accepted') then
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

-- supabase/schemas/04_posts.sql
-- Posts about a day, and their likes.

create type public.post_privacy as enum ('public', 'close_friends', 'private');

comment on type public.post_privacy is 'Who sees a post: public, close_friends (the author''s list) or private (the author only).';

-- Media are up to five paths in the project's storage bucket (private.is_storage_path).
create function private.is_media_list(p_media text[])
returns boolean
language sql
immutable
set search_path = ''
as $$
  select coalesce(cardinality(p_media), 0) <= 5
     and coalesce(array_ndims(p_media), 1) = 1
     and not exists (
       select 1 from unnest(p_media) m
       where not coalesce(private.is_storage_path(m), false)
     )
$$;
revoke execute on function private.is_media_list(text[]) from public;
grant execute on function private.is_media_list(text[]) to anon, authenticated, service_role;
comment on function private.is_media_list(text[]) is 'True for a flat list of at most 5 storage paths.';

create table public.posts (
  id uuid primary key default gen_random_uuid(),
  author_id uuid not null default private.uid() references public.profiles (id) on delete cascade,
  body text not null check (char_length(body) between 1 and 1000),
  media text[] not null default '{}' check (private.is_media_list(media)),
  emotion smallint check (emotion between 0 and 100),
  privacy public.post_privacy not null default 'public',
  day date not null,
  likes_count integer not null default 0 check (likes_count >= 0),
  comments_count integer not null default 0 check (comments_count >= 0),
  banned_at timestamptz,
  created_at timestamptz not null default now(),
  edited_at timestamptz
);
alter table public.posts enable row level security;
create index posts_author_idx on public.posts (author_id, created_at desc, id desc);
create index posts_author_day_idx on public.posts (author_id, day, created_at desc, id desc);
create index posts_banned_idx on public.posts (banned_at desc, id desc) where banned_at is not null;

comment on table public.posts is 'A post about a day. Visible per its privacy, its author''s privacy, blocks and bans.';
comment on column public.posts.id is 'The post''s id.';
comment on column public.posts.author_id is 'The author; the caller by default.';
comment on column public.posts.body is 'Text, 1 to 1000 characters.';
comment on column public.posts.media is 'Up to 5 object paths in the project''s storage bucket.';
comment on column public.posts.emotion is 'Optional mood, 0 to 100.';
comment on column public.posts.privacy is 'public, close_friends (the author''s list) or private (the author only).';
comment on column public.posts.day is 'The date of creation in the author''s time zone at that moment. Set by the database; never changes.';
comment on column public.posts.likes_count is 'Likes (kept by triggers).';
comment on column public.posts.comments_count is 'Comments and replies (kept by triggers).';
comment on column public.posts.banned_at is 'Set while an admin bans the post; then only admins and the author see it.';
comment on column public.posts.created_at is 'When the post was made (set by the database).';
comment on column public.posts.edited_at is 'Last edit of body, media, emotion or privacy.';

-- The day is the author's calendar date when the post is made; neither clients nor edits choose it.
create function private.stamp_post()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if tg_op = 'INSERT' then
    new.created_at := now();
    new.day := (now() at time zone (select p.time_zone from public.profiles p where p.id = new.author_id))::date;
    new.edited_at := null;
    new.banned_at := null;
    return new;
  end if;
  new.author_id := old.author_id;
  new.day := old.day;
  new.created_at := old.created_at;
  if (new.body, new.media, new.emotion, new.privacy) is distinct from (old.body, old.media, old.emotion, old.privacy) then
    new.edited_at := now();
  end if;
  return new;
end;
$$;
revoke execute on function private.stamp_post() from public;
comment on function private.stamp_post() is
  'Trigger: sets day and created_at on insert, keeps author, day and creation on update, stamps edited_at.';

create trigger stamp_post
before insert or update on public.posts
for each row execute function private.stamp_post();

-- A banned post is frozen: its author can no longer rewrite what a moderator banned, through edit_post or a
-- direct update. (Unbanning touches only the ban columns.) Deleting it stays possible.
create function private.refuse_banned_post_edit()
returns trigger
language plpgsql
volatile
set search_path = ''
as $$
begin
  perform private.fail(403, 'post_banned', 'A moderator banned this post: it cannot be edited');
  return null;
end;
$$;
revoke execute on function private.refuse_banned_post_edit() from public;
comment on function private.refuse_banned_post_edit() is 'Trigger: refuses every edit of a banned post (403).';

create trigger refuse_banned_post_edit
before update of body, media, emotion, privacy on public.posts
for each row
when (old.banned_at is not null)
execute function private.refuse_banned_post_edit();

create table public.post_likes (
  post_id uuid not null references public.posts (id) on delete cascade,
  user_id uuid not null default private.uid() references public.profiles (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (post_id, user_id)
);
alter table public.post_likes enable row level security;
create index post_likes_post_idx on public.post_likes (post_id, created_at desc, user_id);
create index post_likes_user_idx on public.post_likes (user_id);

comment on table public.post_likes is 'One like per user per post.';
comment on column public.post_likes.post_id is 'The liked post.';
comment on column public.post_likes.user_id is 'Who liked it; the caller by default.';
comment on column public.post_likes.created_at is 'When it was liked.';

-- supabase/schemas/05_comments.sql
-- Comments on posts, replies to comments, and their likes.

create table public.comments (
  id uuid primary key default gen_random_uuid(),
  post_id uuid not null references public.posts (id) on delete cascade,
  parent_id uuid,
  author_id uuid not null default private.uid() references public.profiles (id) on delete cascade,
  body text not null check (char_length(body) between 1 and 500),
  likes_count integer not null default 0 check (likes_count >= 0),
  replies_count integer not null default 0 check (replies_count >= 0),
  created_at timestamptz not null default now(),
  unique (id, post_id),
  -- A reply belongs to the same post as the comment it answers, and goes with it.
  foreign key (parent_id, post_id) references public.comments (id, post_id) on delete cascade,
  check (parent_id is distinct from id)
);
alter table public.comments enable row level security;
create index comments_post_idx on public.comments (post_id, created_at desc, id desc) where parent_id is null;
create index comments_parent_idx on public.comments (parent_id, post_id, created_at desc, id desc);
create index comments_author_idx on public.comments (author_id);

comment on table public.comments is 'A comment on a post; a reply when parent_id names another comment of the same post.';
comment on column public.comments.id is 'The comment''s id.';
comment on column public.comments.post_id is 'The post it is under (a reply: its parent''s post).';
comment on column public.comments.parent_id is 'The comment it replies to; null for a top-level comment.';
comment on column public.comments.author_id is 'The author; the caller by default.';
comment on column public.comments.body is 'Text, 1 to 500 characters.';
comment on column public.comments.likes_count is 'Likes (kept by triggers).';
comment on column public.comments.replies_count is 'Direct replies (kept by triggers).';
comment on column public.comments.created_at is 'When the comment was made (set by the database).';

create function private.stamp_comment()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  new.created_at := now();
  new.likes_count := 0;
  new.replies_count := 0;
  return new;
end;
$$;
revoke execute on function private.stamp_comment() from public;
comment on function private.stamp_comment() is 'Trigger: a new comment starts now, with no likes and no replies.';

create trigger stamp_comment
before insert on public.comments
for each row execute function private.stamp_comment();

create table public.comment_likes (
  comment_id uuid not null references public.comments (id) on delete cascade,
  user_id uuid not null default private.uid() references public.profiles (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (comment_id, user_id)
);
alter table public.comment_likes enable row level security;
create index comment_likes_comment_idx on public.comment_likes (comment_id, created_at desc, user_id);
create index comment_likes_user_idx on public.comment_likes (user_id);

comment on table public.comment_likes is 'One like per user per comment.';
comment on column public.comment_likes.comment_id is 'The liked comment.';
comment on column public.comment_likes.user_id is 'Who liked it; the caller by default.';
comment on column public.comment_likes.created_at is 'When it was liked.';

-- supabase/schemas/06_moderation.sql
-- Reports by users, the summary of reported elements, the ban history admins write, and the e-mails of
-- deleted banned accounts.

create type public.report_target as enum ('user', 'post', 'comment');

comment on type public.report_target is 'What a report is about: a user, a post or a comment.';

create table public.reports (
  id uuid primary key default gen_random_uuid(),
  reporter_id uuid not null default private.uid() references public.profiles (id) on delete cascade,
  target_type public.report_target not null,
  target_user_id uuid references public.profiles (id) on delete cascade,
  target_post_id uuid references public.posts (id) on delete cascade,
  target_comment_id uuid references public.comments (id) on delete cascade,
  reason text not null check (char_length(reason) between 1 and 1000),
  created_at timestamptz not null default now(),
  -- Exactly the target its type names.
  check (
    (target_type = 'user') = (target_user_id is not null)
    and (target_type = 'post') = (target_post_id is not null)
    and (target_type = 'comment') = (target_comment_id is not null)
  ),
  check (target_user_id is distinct from reporter_id)
);
alter table public.reports enable row level security;
-- One open report per reporter per element; dismissing deletes the report, so another may follow.
create unique index reports_one_per_reporter_idx
  on public.reports (reporter_id, target_type, coalesce(target_user_id, target_post_id, target_comment_id));
create index reports_reporter_idx on public.reports (reporter_id, created_at desc);
create index reports_user_idx on public.reports (target_user_id) where target_user_id is not null;
create index reports_post_idx on public.reports (target_post_id) where target_post_id is not null;
create index reports_comment_idx on public.reports (target_comment_id) where target_comment_id is not null;
create index reports_created_idx on public.reports (target_type, created_at desc, id desc);
-- The reports of one element, newest first: the summary's upkeep and the admin list's latest reasons.
create index reports_target_latest_idx
  on public.reports (coalesce(target_user_id, target_post_id, target_comment_id), created_at desc);

comment on table public.reports is 'A user''s complaint about a user, post or comment. Seen by its reporter and admins.';
comment on column public.reports.id is 'The report''s id.';
comment on column public.reports.reporter_id is 'Who reported; the caller by default.';
comment on column public.reports.target_type is 'What is reported: user, post or comment; names which target column is set.';
comment on column public.reports.target_user_id is 'The reported user, when target_type is user.';
comment on column public.reports.target_post_id is 'The reported post, when target_type is post.';
comment on column public.reports.target_comment_id is 'The reported comment, when target_type is comment.';
comment on column public.reports.reason is 'Why, 1 to 1000 characters.';
comment on column public.reports.created_at is 'When the report was filed.';

-- Admin lists whose pages cost the same however many reports there are: each reported element is kept as one
-- summary row (count and latest report, by trigger), so each page is a keyset read of an index.
create table private.reported_elements (
  target_type public.report_target not null,
  target_id uuid not null,
  reports_count integer not null check (reports_count > 0),
  latest_at timestamptz not null,
  primary key (target_type, target_id)
);
alter table private.reported_elements enable row level security;
create index reported_elements_latest_idx on private.reported_elements (latest_at desc, target_id desc);
create index reported_elements_type_latest_idx on private.reported_elements (target_type, latest_at desc, target_id desc);

comment on table private.reported_elements is 'One row per reported user, post or comment: open reports and the latest. Kept by triggers.';

-- A new report adds one to its element's row (an upsert, atomic under concurrency). A removed report locks
-- the row first, then recounts in a new statement, which sees every report committed meanwhile: a report
-- filed concurrently is neither lost nor left out of the latest date.
create function private.summarize_reports()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row public.reports := case when tg_op = 'DELETE' then old else new end;
  v_target uuid := coalesce(v_row.target_user_id, v_row.target_post_id, v_row.target_comment_id);
  v_count integer;
  v_latest timestamptz;
begin
  if tg_op = 'INSERT' then
    insert into private.reported_elements as e (target_type, target_id, reports_count, latest_at)
    values (v_row.target_type, v_target, 1, v_row.created_at)
    on conflict (target_type, target_id) do update
      set reports_count = e.reports_count + 1, latest_at = greatest(e.latest_at, excluded.latest_at);
    return null;
  end if;
  perform 1 from private.reported_elements e
  where e.target_type = v_row.target_type and e.target_id = v_target
  for update;
  select count(*), max(r.created_at) into v_count, v_latest
  from public.reports r
  where coalesce(r.target_user_id, r.target_post_id, r.target_comment_id) = v_target;
  if v_count = 0 then
    delete from private.reported_elements e where e.target_type = v_row.target_type and e.target_id = v_target;
  else
    update private.reported_elements e set reports_count = v_count, latest_at = v_latest
    where e.target_type = v_row.target_type and e.target_id = v_target;
  end if;
  return null;
end;
$$;
revoke execute on function private.summarize_reports() from public;
comment on function private.summarize_reports() is 'Trigger: keeps private.reported_elements in step with public.reports.';

create trigger summarize_reports
after insert or delete on public.reports
for each row execute function private.summarize_reports();

create type public.ban_element as enum ('user', 'post');
create type public.ban_action as enum ('ban', 'unban');

comment on type public.ban_element is 'What a ban applies to: a user or a post.';
comment on type public.ban_action is 'A ban history entry''s action: ban or unban.';

-- Every ban and unban says why: the history is what other admins read.
create table public.ban_history (
  id uuid primary key default gen_random_uuid(),
  element_type public.ban_element not null,
  -- No foreign key: the history outlives the element.
  element_id uuid not null,
  action public.ban_action not null,
  reason text not null check (char_length(btrim(reason)) between 1 and 1000),
  admin_id uuid references auth.users (id) on delete set null,
  created_at timestamptz not null default now()
);
alter table public.ban_history enable row level security;
create index ban_history_element_idx on public.ban_history (element_id, created_at desc, id desc);
create index ban_history_admin_idx on public.ban_history (admin_id, created_at desc, id desc);

comment on table public.ban_history is 'Every ban and unban of a user or post: who, when, why. Admins only.';
comment on column public.ban_history.id is 'The entry''s id.';
comment on column public.ban_history.element_type is 'user or post.';
comment on column public.ban_history.element_id is 'The user or post id; kept after the element is deleted.';
comment on column public.ban_history.action is 'ban or unban.';
comment on column public.ban_history.reason is 'Why the admin banned or unbanned, 1 to 1000 characters.';
comment on column public.ban_history.admin_id is 'The admin who acted; null once their account is deleted.';
comment on column public.ban_history.created_at is 'When the admin acted.';

-- E-mails of deleted banned accounts: they cannot register again, nor be taken by an e-mail change.
create table private.banned_emails (
  email text primary key check (email = lower(email)),
  banned_at timestamptz not null default now()
);
alter table private.banned_emails enable row level security;

comment on table private.banned_emails is 'E-mails of banned accounts that were deleted; sign-up with them is refused.';

-- supabase/schemas/07_accounts_and_codes.sql
-- Accounts, on Supabase Auth's own tables: the profile made at sign-up, banned e-mails refused, and the rules
-- of the e-mailed codes (the sessions they begin, the guesses they allow, the e-mails that carry them) that
-- hold against a stolen token and an attacker with many addresses (README "Security"). The triggers live on
-- auth.users and auth.mfa_amr_claims, so they hold for the facade and for clients calling Auth directly.

-- A username for an account that did not choose one (Google sign-up): from the e-mail's local part,
-- made valid and then unique with a numeric suffix.
create function private.derive_username(p_email text)
returns text
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_base text := left(regexp_replace(lower(split_part(coalesce(p_email, ''), '@', 1)), '[^a-z0-9._]', '', 'g'), 24);
  v_candidate text;
begin
  if length(v_base) < 3 then
    v_base := rpad(v_base || 'user', 3, '0');
  end if;
  v_candidate := v_base;
  while exists (select 1 from public.profiles p where p.username = v_candidate)
     or exists (select 1 from private.reserved_usernames r where r.name = v_candidate) loop
    v_candidate := v_base || '_' || (1000 + floor(random() * 9000))::integer::text;
  end loop;
  return v_candidate;
end;
$$;
revoke execute on function private.derive_username(text) from public;
comment on function private.derive_username(text) is 'A free, valid username made from an e-mail''s local part.';

create function private.refuse_banned_email(p_email text)
returns void
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  if exists (select 1 from private.banned_emails b where b.email = lower(btrim(coalesce(p_email, '')))) then
    perform private.fail(403, 'email_banned', 'This e-mail address belongs to a banned account');
  end if;
end;
$$;
revoke execute on function private.refuse_banned_email(text) from public;
-- Only the facade asks it directly (as service_role), and only once Auth, behind its rate limits, has refused
-- the address: no client gets an unthrottled oracle of banned addresses.
grant execute on function private.refuse_banned_email(text) to service_role;
comment on function private.refuse_banned_email(text) is 'Raises 403 email_banned for the e-mail of a deleted banned account.';

-- Sign-up (Auth inserts into auth.users): refuse banned e-mails, then create the profile from the
-- sign-up metadata (username, display_name, time_zone), or derive a username when none was given.
create function private.create_profile_for_new_user()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_meta jsonb := coalesce(new.raw_user_meta_data, '{}'::jsonb);
  v_time_zone text := coalesce(nullif(v_meta ->> 'time_zone', ''), 'UTC');
begin
  perform private.refuse_banned_email(new.email);
  if not private.is_time_zone(v_time_zone) then
    v_time_zone := 'UTC';
  end if;
  insert into public.profiles (id, username, display_name, time_zone, confirmed_at)
  values (
    new.id,
    coalesce(nullif(v_meta ->> 'username', ''), private.derive_username(new.email)),
    -- A Google name may carry characters a display name refuses: drop them rather than refuse the sign-up.
    left(regexp_replace(coalesce(v_meta ->> 'display_name', v_meta ->> 'full_name', ''),
      '[[:cntrl:]\u200E\u200F\u202A-\u202E\u2066-\u2069]', '', 'g'), 50),
    v_time_zone,
    new.email_confirmed_at
  );
  return new;
end;
$$;
revoke execute on function private.create_profile_for_new_user() from public;
comment on function private.create_profile_for_new_user() is
  'Trigger on auth.users: refuses a banned e-mail, then creates the profile from the sign-up metadata.';

create trigger create_profile
after insert on auth.users
for each row execute function private.create_profile_for_new_user();

create function private.sync_profile_confirmation()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  update public.profiles set confirmed_at = new.email_confirmed_at where id = new.id;
  return new;
end;
$$;
revoke execute on function private.sync_profile_confirmation() from public;
comment on function private.sync_profile_confirmation() is 'Trigger on auth.users: copies email_confirmed_at to the profile.';

create trigger sync_profile_confirmation
after update of email_confirmed_at on auth.users
for each row
when (old.email_confirmed_at is distinct from new.email_confirmed_at)
execute function private.sync_profile_confirmation();

-- An existing account may not take a banned address by an e-mail change either (Auth keeps the requested
-- address in email_change until it is confirmed, then moves it to email).
create function private.refuse_banned_email_change()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform private.refuse_banned_email(new.email);
  perform private.refuse_banned_email(new.email_change);
  return new;
end;
$$;
revoke execute on function private.refuse_banned_email_change() from public;
comment on function private.refuse_banned_email_change() is 'Trigger on auth.users: refuses changing to a banned e-mail.';

create trigger refuse_banned_email_change
before update of email, email_change on auth.users
for each row
when (old.email is distinct from new.email or old.email_change is distinct from new.email_change)
execute function private.refuse_banned_email_change();

-- Only a password-reset session may change the password without the current one.
-- Auth tags every session begun at /verify as `otp`, and exempts such sessions from
-- `require_current_password` for their whole life, as if each were a password recovery. A session from a
-- sign-up or e-mail-change confirmation is not one: its claim becomes `email/signup`, which Auth holds to
-- the current password like a password login. A recovery (or magic-link) code verification clears
-- the account's recovery token in the same transaction as the session is made; that is how it is told apart.
create function private.note_recovery_verified()
returns trigger
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  perform set_config('private.recovered_user', new.id::text, true);
  return null;
end;
$$;
revoke execute on function private.note_recovery_verified() from public;
comment on function private.note_recovery_verified() is
  'Trigger on auth.users: notes, for the transaction, the account whose recovery code was just verified.';

create trigger note_recovery_verified
after update of recovery_token on auth.users
for each row
when (old.recovery_token <> '' and new.recovery_token = ''
      and old.encrypted_password is not distinct from new.encrypted_password)
execute function private.note_recovery_verified();

create function private.limit_code_sessions()
returns trigger
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  if new.authentication_method = 'otp'
     and (select s.user_id::text from auth.sessions s where s.id = new.session_id)
         is distinct from current_setting('private.recovered_user', true) then
    new.authentication_method := 'email/signup';
  end if;
  return new;
end;
$$;
revoke execute on function private.limit_code_sessions() from public;
comment on function private.limit_code_sessions() is
  'Trigger on auth.mfa_amr_claims: a code session that is not a password recovery is recorded as email/signup.';

create trigger limit_code_sessions
before insert on auth.mfa_amr_claims
for each row execute function private.limit_code_sessions();

-- A few wrong codes void the account's codes, whatever addresses the guesses come from.
-- Auth limits guesses per client address only. The facade takes an attempt here before each verification
-- it asks Auth for; past the limit, every outstanding code of the account is voided (the owner asks for a
-- new one). A new code e-mailed to the account starts the count again.
create table private.code_attempts (
  user_id uuid primary key references auth.users (id) on delete cascade,
  attempts integer not null default 1 check (attempts > 0),
  first_at timestamptz not null default now()
);
alter table private.code_attempts enable row level security;
comment on table private.code_attempts is
  'Verifications of e-mailed codes asked through the facade per account since its last code was sent (private.take_code_attempt).';

create function private.max_code_attempts()
returns integer
language sql
immutable
set search_path = ''
as $$
  select 5
$$;
revoke execute on function private.max_code_attempts() from public;
comment on function private.max_code_attempts() is 'Verifications allowed per e-mailed code before the account''s codes are voided.';

-- p_email is the address the code was sent to: for an e-mail change, the old or the new one.
create function private.take_code_attempt(p_email text)
returns boolean
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_exhausted uuid[];
begin
  with targets as (
    select u.id from auth.users u where u.email = lower(p_email) and not u.is_sso_user
    union
    select u.id from auth.users u where u.email_change = lower(p_email) and u.email_change <> ''
  ),
  counted as (
    insert into private.code_attempts as a (user_id)
    select t.id from targets t
    on conflict (user_id) do update set attempts = a.attempts + 1
    returning a.user_id, a.attempts
  )
  select coalesce(array_agg(c.user_id) filter (where c.attempts > private.max_code_attempts()), '{}')
  into v_exhausted
  from counted c;

  if cardinality(v_exhausted) = 0 then
    return true;
  end if;
  update auth.users u set
    confirmation_token = '', recovery_token = '', email_change_token_current = '', email_change_token_new = '',
    reauthentication_token = ''
  where u.id = any (v_exhausted);
  delete from auth.one_time_tokens t where t.user_id = any (v_exhausted);
  return false;
end;
$$;
revoke execute on function private.take_code_attempt(text) from public;
grant execute on function private.take_code_attempt(text) to service_role;
comment on function private.take_code_attempt(text) is
  'Counts a verification of a code sent to p_email; false (and every code of the account voided) past the limit.';

create function private.reset_code_attempts()
returns trigger
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  delete from private.code_attempts a where a.user_id = new.id;
  return null;
end;
$$;
revoke execute on function private.reset_code_attempts() from public;
comment on function private.reset_code_attempts() is 'Trigger on auth.users: a new code e-mailed to the account starts its count of attempts again.';

create trigger reset_code_attempts
after update of confirmation_sent_at, recovery_sent_at, email_change_sent_at on auth.users
for each row
when (old.confirmation_sent_at is distinct from new.confirmation_sent_at
      or old.recovery_sent_at is distinct from new.recovery_sent_at
      or old.email_change_sent_at is distinct from new.email_change_sent_at)
execute function private.reset_code_attempts();

-- At most one code e-mail of a kind per account a minute, however many requests arrive at once.
-- Auth's own interval (max_frequency) is read and written without a lock, so concurrent requests all pass
-- it. The facade asks here first: one row per account and kind, updated only once the interval has passed.
create table private.code_mails (
  user_id uuid not null references auth.users (id) on delete cascade,
  kind text not null check (kind in ('signup', 'recovery', 'deletion')),
  sent_at timestamptz not null default now(),
  primary key (user_id, kind)
);
alter table private.code_mails enable row level security;
comment on table private.code_mails is 'When the facade last let a code e-mail of each kind go to each account.';

create function private.may_mail_code(p_email text, p_kind text)
returns boolean
language sql
volatile
security definer
set search_path = ''
as $$
  with account as (
    select u.id from auth.users u where u.email = lower(p_email) and not u.is_sso_user
  ),
  allowed as (
    insert into private.code_mails as m (user_id, kind)
    select a.id, p_kind from account a
    on conflict (user_id, kind) do update set sent_at = now()
    where m.sent_at <= now() - interval '60 seconds'
    returning 1
  )
  -- An unknown address is let through: Auth sends nothing to it, and answers as for a known one.
  select exists (select 1 from allowed) or not exists (select 1 from account)
$$;
revoke execute on function private.may_mail_code(text, text) from public;
grant execute on function private.may_mail_code(text, text) to service_role;
comment on function private.may_mail_code(text, text) is
  'Whether a code e-mail of p_kind (signup, recovery, deletion) may go to p_email now: once a minute per account.';

-- supabase/schemas/08_visibility.sql
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

-- supabase/schemas/09_policies.sql
-- Row-level security and table privileges. Reads follow the visibility helpers; writes are allowed only
-- for the caller's own rows, and column privileges keep counters, days, authors and bans out of reach.
-- Policies use `(select private.uid())` and `(select private.is_admin())`, evaluated once per statement.

-- profiles ---------------------------------------------------------------------------------------------
grant select on public.profiles to anon, authenticated;
grant update (username, display_name, bio, avatar_url, time_zone, is_private) on public.profiles to authenticated;
grant all on public.profiles to service_role;

create policy "visible profiles are readable" on public.profiles
for select to anon, authenticated
using ((select private.is_admin()) or private.can_see_user((select private.uid()), id));

create policy "users edit their own profile" on public.profiles
for update to authenticated
using (id = (select private.uid()))
with check (id = (select private.uid()));

-- follows ----------------------------------------------------------------------------------------------
grant select on public.follows to anon, authenticated;
grant insert (follower_id, followee_id), update (status), delete on public.follows to authenticated;
grant all on public.follows to service_role;

-- A follow row is readable by others only when both accounts' lists are: "A follows P" belongs to P's
-- followers list as much as to A's following list, and a private account's lists are for its followers
-- alone. A banned account is invisible to everyone but admins, its relations too: the other party of a
-- follow no longer reads the row while the ban lasts (it is back on unban).
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

create policy "users follow accounts they can see" on public.follows
for insert to authenticated
with check (follower_id = (select private.uid()) and private.can_see_user((select private.uid()), followee_id));

create policy "users accept requests made to them" on public.follows
for update to authenticated
using (followee_id = (select private.uid()) and status = 'pending')
with check (followee_id = (select private.uid()));

create policy "either party ends a follow or request" on public.follows
for delete to authenticated
using ((select private.uid()) in (follower_id, followee_id));

-- close_friends ----------------------------------------------------------------------------------------
-- anon may ask (profile JSON mentions the table for signed-in viewers) but no policy lets it see a row.
grant select on public.close_friends to anon;
grant select, insert (owner_id, friend_id), delete on public.close_friends to authenticated;
grant all on public.close_friends to service_role;

-- The owner no longer reads the entry of a banned account while the ban lasts.
create policy "owners read their close friends" on public.close_friends
for select to authenticated
using (
  (select private.is_admin())
  or owner_id = (select private.uid()) and private.can_see_user((select private.uid()), friend_id)
);

create policy "owners add accounts they can see" on public.close_friends
for insert to authenticated
with check (owner_id = (select private.uid()) and private.can_see_user((select private.uid()), friend_id));

create policy "owners remove close friends" on public.close_friends
for delete to authenticated
using (owner_id = (select private.uid()));

-- blocks -----------------------------------------------------------------------------------------------
grant select, insert (blocker_id, blocked_id), delete on public.blocks to authenticated;
grant all on public.blocks to service_role;

create policy "blockers read their blocks" on public.blocks
for select to authenticated
using (blocker_id = (select private.uid()) or (select private.is_admin()));

create policy "users block accounts they can see" on public.blocks
for insert to authenticated
with check (blocker_id = (select private.uid()) and private.can_see_user((select private.uid()), blocked_id));

create policy "blockers unblock" on public.blocks
for delete to authenticated
using (blocker_id = (select private.uid()));

-- posts ------------------------------------------------------------------------------------------------
grant select on public.posts to anon, authenticated;
grant insert (body, media, emotion, privacy), update (body, media, emotion, privacy), delete
  on public.posts to authenticated;
grant all on public.posts to service_role;

create policy "visible posts are readable" on public.posts
for select to anon, authenticated
using (
  (select private.is_admin())
  or private.can_see_post((select private.uid()), author_id, privacy, banned_at)
);

create policy "users write posts as themselves" on public.posts
for insert to authenticated
with check (author_id = (select private.uid()));

create policy "authors edit their posts" on public.posts
for update to authenticated
using (author_id = (select private.uid()))
with check (author_id = (select private.uid()));

create policy "authors delete their posts, admins banned ones" on public.posts
for delete to authenticated
using (author_id = (select private.uid()) or banned_at is not null and (select private.is_admin()));

-- post_likes -------------------------------------------------------------------------------------------
grant select on public.post_likes to anon, authenticated;
grant insert (post_id), delete on public.post_likes to authenticated;
grant all on public.post_likes to service_role;

create policy "likes of visible posts by visible users are readable" on public.post_likes
for select to anon, authenticated
using (
  (select private.is_admin())
  or private.can_see_post_id((select private.uid()), post_id)
     and private.can_see_user((select private.uid()), user_id)
);

create policy "users like posts they can see, as themselves" on public.post_likes
for insert to authenticated
with check (user_id = (select private.uid()) and private.can_see_post_id((select private.uid()), post_id));

create policy "users take back their likes" on public.post_likes
for delete to authenticated
using (user_id = (select private.uid()));

-- comments ---------------------------------------------------------------------------------------------
grant select on public.comments to anon, authenticated;
grant insert (post_id, parent_id, body), delete on public.comments to authenticated;
grant all on public.comments to service_role;

create policy "comments of visible posts by visible authors are readable" on public.comments
for select to anon, authenticated
using (
  (select private.is_admin())
  or private.can_see_post_id((select private.uid()), post_id)
     and private.can_see_user((select private.uid()), author_id)
);

create policy "users comment on posts and comments they can see" on public.comments
for insert to authenticated
with check (
  author_id = (select private.uid())
  and private.can_see_post_id((select private.uid()), post_id)
  and (parent_id is null or private.can_see_comment_id((select private.uid()), parent_id))
);

create policy "authors, post authors and admins delete comments" on public.comments
for delete to authenticated
using (private.may_delete_comment(author_id, post_id));

-- comment_likes ----------------------------------------------------------------------------------------
grant select on public.comment_likes to anon, authenticated;
grant insert (comment_id), delete on public.comment_likes to authenticated;
grant all on public.comment_likes to service_role;

create policy "likes of visible comments by visible users are readable" on public.comment_likes
for select to anon, authenticated
using (
  (select private.is_admin())
  or private.can_see_comment_id((select private.uid()), comment_id)
     and private.can_see_user((select private.uid()), user_id)
);

create policy "users like comments they can see, as themselves" on public.comment_likes
for insert to authenticated
with check (user_id = (select private.uid()) and private.can_see_comment_id((select private.uid()), comment_id));

create policy "users take back their comment likes" on public.comment_likes
for delete to authenticated
using (user_id = (select private.uid()));

-- reports ----------------------------------------------------------------------------------------------
grant select, insert (target_type, target_user_id, target_post_id, target_comment_id, reason), delete
  on public.reports to authenticated;
grant all on public.reports to service_role;

create policy "reporters and admins read reports" on public.reports
for select to authenticated
using (reporter_id = (select private.uid()) or (select private.is_admin()));

create policy "users report what they can see" on public.reports
for insert to authenticated
with check (
  reporter_id = (select private.uid())
  and case target_type
    when 'user' then private.can_see_user((select private.uid()), target_user_id)
    when 'post' then private.can_see_post_id((select private.uid()), target_post_id)
    when 'comment' then private.can_see_comment_id((select private.uid()), target_comment_id)
  end
);

create policy "admins dismiss reports" on public.reports
for delete to authenticated
using ((select private.is_admin()));

-- private.reported_elements ----------------------------------------------------------------------------
-- Read by public.admin_reports, which runs as the admin calling it.
grant select on private.reported_elements to authenticated;

create policy "admins read reported elements" on private.reported_elements
for select to authenticated
using ((select private.is_admin()));

-- ban_history ------------------------------------------------------------------------------------------
grant select on public.ban_history to authenticated;
grant all on public.ban_history to service_role;

create policy "admins read the ban history" on public.ban_history
for select to authenticated
using ((select private.is_admin()));

-- supabase/schemas/10_counters.sql
-- Counters kept in the same transaction as the rows they count. Each change is one `update … set n = n ± 1`,
-- so concurrent writers queue on the row lock and the count stays exact; rows are updated in id order so
-- two writers never wait on each other crosswise. private.recount_counters() recomputes everything.

create function private.count_follow()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row public.follows := case when tg_op = 'DELETE' then old else new end;
  v_delta integer;
begin
  v_delta := case
    when tg_op = 'INSERT' and new.status = 'accepted' then 1
    when tg_op = 'UPDATE' and old.status = 'pending' and new.status = 'accepted' then 1
    when tg_op = 'DELETE' and old.status = 'accepted' then -1
    else 0
  end;
  if v_delta <> 0 then
    update public.profiles p set
      followers_count = p.followers_count + case when p.id = v_row.followee_id then v_delta else 0 end,
      following_count = p.following_count + case when p.id = v_row.follower_id then v_delta else 0 end
    where p.id in (v_row.follower_id, v_row.followee_id);
  end if;
  return null;
end;
$$;
revoke execute on function private.count_follow() from public;
comment on function private.count_follow() is 'Trigger: keeps followers_count and following_count of both accounts.';

create trigger count_follow
after insert or update or delete on public.follows
for each row execute function private.count_follow();

create function private.count_post()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  update public.profiles p
  set posts_count = p.posts_count + case when tg_op = 'INSERT' then 1 else -1 end
  where p.id = case when tg_op = 'INSERT' then new.author_id else old.author_id end;
  return null;
end;
$$;
revoke execute on function private.count_post() from public;
comment on function private.count_post() is 'Trigger: keeps the author''s posts_count.';

create trigger count_post
after insert or delete on public.posts
for each row execute function private.count_post();

create function private.count_post_like()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  update public.posts p
  set likes_count = p.likes_count + case when tg_op = 'INSERT' then 1 else -1 end
  where p.id = case when tg_op = 'INSERT' then new.post_id else old.post_id end;
  return null;
end;
$$;
revoke execute on function private.count_post_like() from public;
comment on function private.count_post_like() is 'Trigger: keeps the post''s likes_count.';

create trigger count_post_like
after insert or delete on public.post_likes
for each row execute function private.count_post_like();

create function private.count_comment()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row public.comments := case when tg_op = 'DELETE' then old else new end;
  v_delta integer := case when tg_op = 'INSERT' then 1 else -1 end;
begin
  update public.posts p set comments_count = p.comments_count + v_delta where p.id = v_row.post_id;
  if v_row.parent_id is not null then
    update public.comments c set replies_count = c.replies_count + v_delta where c.id = v_row.parent_id;
  end if;
  return null;
end;
$$;
revoke execute on function private.count_comment() from public;
comment on function private.count_comment() is 'Trigger: keeps the post''s comments_count and the parent''s replies_count.';

create trigger count_comment
after insert or delete on public.comments
for each row execute function private.count_comment();

create function private.count_comment_like()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  update public.comments c
  set likes_count = c.likes_count + case when tg_op = 'INSERT' then 1 else -1 end
  where c.id = case when tg_op = 'INSERT' then new.comment_id else old.comment_id end;
  return null;
end;
$$;
revoke execute on function private.count_comment_like() from public;
comment on function private.count_comment_like() is 'Trigger: keeps the comment''s likes_count.';

create trigger count_comment_like
after insert or delete on public.comment_likes
for each row execute function private.count_comment_like();

-- Recomputes every counter from the rows; returns how many rows were wrong (0 when all is well).
create function private.recount_counters()
returns integer
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_fixed integer := 0;
  v_rows integer;
begin
  update public.profiles p set
    followers_count = c.followers, following_count = c.following, posts_count = c.posts
  from (
    select p2.id,
      (select count(*) from public.follows f where f.followee_id = p2.id and f.status = 'accepted')::integer as followers,
      (select count(*) from public.follows f where f.follower_id = p2.id and f.status = 'accepted')::integer as following,
      (select count(*) from public.posts x where x.author_id = p2.id)::integer as posts
    from public.profiles p2
  ) c
  where c.id = p.id
    and (p.followers_count, p.following_count, p.posts_count) is distinct from (c.followers, c.following, c.posts);
  get diagnostics v_rows = row_count;
  v_fixed := v_fixed + v_rows;

  update public.posts p set likes_count = c.likes, comments_count = c.comments
  from (
    select p2.id,
      (select count(*) from public.post_likes l where l.post_id = p2.id)::integer as likes,
      (select count(*) from public.comments x where x.post_id = p2.id)::integer as comments
    from public.posts p2
  ) c
  where c.id = p.id and (p.likes_count, p.comments_count) is distinct from (c.likes, c.comments);
  get diagnostics v_rows = row_count;
  v_fixed := v_fixed + v_rows;

  update public.comments p set likes_count = c.likes, replies_count = c.replies
  from (
    select c2.id,
      (select count(*) from public.comment_likes l where l.comment_id = c2.id)::integer as likes,
      (select count(*) from public.comments r where r.parent_id = c2.id)::integer as replies
    from public.comments c2
  ) c
  where c.id = p.id and (p.likes_count, p.replies_count) is distinct from (c.likes, c.replies);
  get diagnostics v_rows = row_count;
  return v_fixed + v_rows;
end;
$$;
revoke execute on function private.recount_counters() from public;
grant execute on function private.recount_counters() to service_role;
comment on function private.recount_counters() is 'Recomputes every counter from the rows; returns the number of rows corrected.';

-- supabase/schemas/11_api_shapes.sql
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

-- supabase/schemas/12_api_profiles_relationships.sql
-- API: profiles and relationships (follow, requests, followers, close friends, blocks, reports of users).
-- Toggles take an optional desired state (null = toggle) so that a retried request is idempotent, and
-- answer with the resulting state and the other account as the caller now sees it.

create function public.get_profile(p_username text)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select private.profile_json(private.find_user(p_username), private.uid())
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
    'user', private.profile_json((select p from public.profiles p where p.id = v_target.id), v_me));
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
    'user', private.profile_json((select p from public.profiles p where p.id = v_requester.id), v_me));
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
    'user', private.profile_json((select p from public.profiles p where p.id = v_follower.id), v_me));
end;
$$;
revoke execute on function public.remove_follower(text) from public;
grant execute on function public.remove_follower(text) to authenticated, service_role;
comment on function public.remove_follower(text) is 'Stop someone following the caller (their pending request goes too).';

-- followers / following / requests: profiles with the time the relation was made, newest first.
create function private.follow_page(
  p_owner uuid, p_direction text, p_status public.follow_status, p_cursor text, p_limit integer
)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_viewer uuid := private.uid();
  v_limit integer := private.page_limit(p_limit);
  v_after record := private.decode_cursor(p_cursor);
  v_rows jsonb;
begin
  select coalesce(jsonb_agg(jsonb_build_object('at', x.since, 'id', x.other_id,
           'item', private.profile_json(x.other, v_viewer) || jsonb_build_object('since', x.since))
         order by x.since desc, x.other_id desc), '[]'::jsonb)
  into v_rows
  from (
    select f.since, p.id as other_id, p as other
    from public.follows f
    join public.profiles p on p.id = case when p_direction = 'followers' then f.follower_id else f.followee_id end
    where case when p_direction = 'followers' then f.followee_id else f.follower_id end = p_owner
      and f.status = p_status
      and (v_after.at is null or (f.since, p.id) < (v_after.at, v_after.id))
    order by f.since desc, p.id desc
    limit v_limit + 1
  ) x;
  return private.to_page(v_rows, v_limit);
end;
$$;
revoke execute on function private.follow_page(uuid, text, public.follow_status, text, integer) from public;
grant execute on function private.follow_page(uuid, text, public.follow_status, text, integer) to anon, authenticated, service_role;
comment on function private.follow_page(uuid, text, public.follow_status, text, integer) is
  'A page of the owner''s followers or followed accounts of one status, newest first.';

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
  return private.follow_page(v_owner.id, 'followers', 'accepted', p_cursor, p_limit);
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
  return private.follow_page(v_owner.id, 'following', 'accepted', p_cursor, p_limit);
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
  select private.follow_page(private.require_uid(), 'followers', 'pending', p_cursor, p_limit)
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
    'user', private.profile_json(v_friend, v_me));
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
           'item', private.profile_json(x.friend, v_me) || jsonb_build_object('since', x.created_at))
         order by x.created_at desc, x.friend_id desc), '[]'::jsonb)
  into v_rows
  from (
    select c.created_at, c.friend_id, p as friend
    from public.close_friends c join public.profiles p on p.id = c.friend_id
    where c.owner_id = v_me
      and (v_after.at is null or (c.created_at, c.friend_id) < (v_after.at, v_after.id))
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

create function private.blocks_page(p_cursor text, p_limit integer)
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

-- supabase/schemas/13_api_posts_days.sql
-- API: posts, their likes and reports, the calendar and posts by day.

create function public.create_post(
  p_body text, p_media text[] default '{}', p_emotion integer default null,
  p_privacy public.post_privacy default 'public'
)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_me uuid := private.require_uid();
  v_post public.posts;
begin
  insert into public.posts (body, media, emotion, privacy)
  values (btrim(coalesce(p_body, '')), coalesce(p_media, '{}'), p_emotion, coalesce(p_privacy, 'public'))
  returning * into v_post;
  return private.post_json(v_post, v_me);
end;
$$;
revoke execute on function public.create_post(text, text[], integer, public.post_privacy) from public;
grant execute on function public.create_post(text, text[], integer, public.post_privacy) to authenticated, service_role;
comment on function public.create_post(text, text[], integer, public.post_privacy) is
  'Write a post as the caller; its day is today in the caller''s time zone.';

create function public.get_post(p_post_id uuid)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select private.post_json(private.find_post(p_post_id), private.uid())
$$;
revoke execute on function public.get_post(uuid) from public;
grant execute on function public.get_post(uuid) to anon, authenticated, service_role;
comment on function public.get_post(uuid) is 'A visible post with fresh counts and viewer flags; 404 otherwise.';

-- Visible but not theirs: 403 (the caller already knows the post exists).
create function private.require_post_author(p_post public.posts)
returns void
language plpgsql
stable
set search_path = ''
as $$
begin
  if p_post.author_id is distinct from private.uid() then
    perform private.fail(403, 'not_author', 'Only the author may change this post');
  end if;
end;
$$;
revoke execute on function private.require_post_author(public.posts) from public;
grant execute on function private.require_post_author(public.posts) to authenticated, service_role;
comment on function private.require_post_author(public.posts) is 'Raises 403 not_author unless the caller wrote the post.';

-- p_changes holds the fields to change: body, media, emotion (null clears it), privacy.
create function public.edit_post(p_post_id uuid, p_changes jsonb)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_me uuid := private.require_uid();
  v_post public.posts := private.find_post(p_post_id);
begin
  perform private.require_post_author(v_post);
  if jsonb_typeof(p_changes) is distinct from 'object'
     or exists (select 1 from jsonb_object_keys(p_changes) k where k not in ('body', 'media', 'emotion', 'privacy')) then
    perform private.fail(400, 'invalid_changes', 'Changes are an object of body, media, emotion and privacy');
  end if;
  update public.posts p set
    body = case when p_changes ? 'body' then btrim(p_changes ->> 'body') else p.body end,
    media = case when p_changes ? 'media'
      then coalesce((select array_agg(m) from jsonb_array_elements_text(p_changes -> 'media') m), '{}') else p.media end,
    emotion = case when p_changes ? 'emotion' then (p_changes ->> 'emotion')::smallint else p.emotion end,
    privacy = case when p_changes ? 'privacy' then (p_changes ->> 'privacy')::public.post_privacy else p.privacy end
  where p.id = p_post_id
  returning * into v_post;
  return private.post_json(v_post, v_me);
end;
$$;
revoke execute on function public.edit_post(uuid, jsonb) from public;
grant execute on function public.edit_post(uuid, jsonb) to authenticated, service_role;
comment on function public.edit_post(uuid, jsonb) is 'Edit the caller''s post (body, media, emotion, privacy); sets edited_at.';

create function public.delete_post(p_post_id uuid)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_post public.posts := private.find_post(p_post_id);
begin
  perform private.require_uid();
  perform private.require_post_author(v_post);
  delete from public.posts p where p.id = p_post_id;
  return jsonb_build_object('deleted', true, 'id', p_post_id);
end;
$$;
revoke execute on function public.delete_post(uuid) from public;
grant execute on function public.delete_post(uuid) to authenticated, service_role;
comment on function public.delete_post(uuid) is 'Delete the caller''s post with its comments and likes.';

-- A page of posts of one author, optionally of one day, newest first.
create function private.posts_page(p_author uuid, p_day date, p_cursor text, p_limit integer)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_viewer uuid := private.uid();
  v_limit integer := private.page_limit(p_limit);
  v_after record := private.decode_cursor(p_cursor);
  v_rows jsonb;
begin
  select coalesce(jsonb_agg(jsonb_build_object('at', x.created_at, 'id', x.id, 'item', private.post_json(x, v_viewer))
         order by x.created_at desc, x.id desc), '[]'::jsonb)
  into v_rows
  from (
    select p.* from public.posts p
    where p.author_id = p_author
      and (p_day is null or p.day = p_day)
      and (v_after.at is null or (p.created_at, p.id) < (v_after.at, v_after.id))
    order by p.created_at desc, p.id desc
    limit v_limit + 1
  ) x;
  return private.to_page(v_rows, v_limit);
end;
$$;
revoke execute on function private.posts_page(uuid, date, text, integer) from public;
grant execute on function private.posts_page(uuid, date, text, integer) to anon, authenticated, service_role;
comment on function private.posts_page(uuid, date, text, integer) is
  'A page of an author''s posts the caller may see (of one day when p_day is given), newest first.';

create function public.user_posts(p_username text, p_cursor text default null, p_limit integer default null)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_owner public.profiles := private.find_user(p_username);
begin
  perform private.require_activity_visible(v_owner);
  return private.posts_page(v_owner.id, null, p_cursor, p_limit);
end;
$$;
revoke execute on function public.user_posts(text, text, integer) from public;
grant execute on function public.user_posts(text, text, integer) to anon, authenticated, service_role;
comment on function public.user_posts(text, text, integer) is 'A user''s posts the caller may see, newest first.';

-- The caller's own day when no username is given.
create function public.posts_by_day(
  p_day date, p_username text default null, p_cursor text default null, p_limit integer default null
)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_me uuid;
  v_owner public.profiles;
begin
  if p_day is null then
    perform private.fail(400, 'invalid_date', 'Give the day as an ISO date (YYYY-MM-DD)');
  end if;
  if p_username is null then
    v_me := private.require_uid();
    select * into v_owner from public.profiles p where p.id = v_me;
  else
    v_owner := private.find_user(p_username);
  end if;
  perform private.require_activity_visible(v_owner);
  return private.posts_page(v_owner.id, p_day, p_cursor, p_limit);
end;
$$;
revoke execute on function public.posts_by_day(date, text, text, integer) from public;
grant execute on function public.posts_by_day(date, text, text, integer) to anon, authenticated, service_role;
comment on function public.posts_by_day(date, text, text, integer) is
  'Posts the caller may see of one user (the caller when none is named) on one day.';

-- Per day of the range, the owner's posts the caller may see, with a level 0..4: 0 for none, then the
-- quartile of the count against the range's busiest day. Only days with posts are listed.
create function public.calendar(p_username text default null, p_from date default null, p_to date default null)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_me uuid;
  v_owner public.profiles;
  v_to date;
  v_from date;
  v_days jsonb;
begin
  if p_username is null then
    v_me := private.require_uid();
    select * into v_owner from public.profiles p where p.id = v_me;
  else
    v_owner := private.find_user(p_username);
  end if;
  perform private.require_activity_visible(v_owner);
  v_to := coalesce(p_to, (now() at time zone v_owner.time_zone)::date);
  v_from := coalesce(p_from, v_to - 364);
  if v_from > v_to then
    perform private.fail(400, 'invalid_range', 'from must not be after to');
  end if;
  if v_to - v_from > 3660 then
    perform private.fail(400, 'range_too_long', 'A calendar covers at most ten years');
  end if;
  select coalesce(jsonb_agg(jsonb_build_object(
           'day', d.day, 'count', d.count,
           'level', least(4, greatest(1, ceil(4.0 * d.count / d.busiest)::integer)))
         order by d.day), '[]'::jsonb)
  into v_days
  from (
    select p.day, count(*)::integer as count, max(count(*)) over ()::integer as busiest
    from public.posts p
    where p.author_id = v_owner.id and p.day between v_from and v_to
    group by p.day
  ) d;
  return jsonb_build_object(
    'user', private.author_json(v_owner.id), 'from', v_from, 'to', v_to, 'days', v_days);
end;
$$;
revoke execute on function public.calendar(text, date, date) from public;
grant execute on function public.calendar(text, date, date) to anon, authenticated, service_role;
comment on function public.calendar(text, date, date) is
  'Posts per day the caller may see (default: the last 365 days; at most ten years), with a level 0..4.';

-- likes ------------------------------------------------------------------------------------------------
create function public.like_post(p_post_id uuid, p_like boolean default null)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_me uuid := private.require_uid();
  v_post public.posts := private.find_post(p_post_id);
  v_liked boolean := exists (select 1 from public.post_likes l where l.post_id = v_post.id and l.user_id = v_me);
begin
  if coalesce(p_like, not v_liked) then
    insert into public.post_likes (post_id) values (v_post.id) on conflict do nothing;
  else
    delete from public.post_likes l where l.post_id = v_post.id and l.user_id = v_me;
  end if;
  return private.post_json(private.find_post(p_post_id), v_me);
end;
$$;
revoke execute on function public.like_post(uuid, boolean) from public;
grant execute on function public.like_post(uuid, boolean) to authenticated, service_role;
comment on function public.like_post(uuid, boolean) is 'Like or unlike; p_like null toggles. Returns the post with fresh counts.';

create function private.likers_page(p_kind text, p_target uuid, p_cursor text, p_limit integer)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_viewer uuid := private.uid();
  v_limit integer := private.page_limit(p_limit);
  v_after record := private.decode_cursor(p_cursor);
  v_rows jsonb;
begin
  select coalesce(jsonb_agg(jsonb_build_object('at', x.created_at, 'id', x.user_id,
           'item', private.author_json(x.user_id) || jsonb_build_object('liked_at', x.created_at))
         order by x.created_at desc, x.user_id desc), '[]'::jsonb)
  into v_rows
  from (
    select l.created_at, l.user_id from public.post_likes l
    where p_kind = 'post' and l.post_id = p_target
      and (v_after.at is null or (l.created_at, l.user_id) < (v_after.at, v_after.id))
    union all
    select l.created_at, l.user_id from public.comment_likes l
    where p_kind = 'comment' and l.comment_id = p_target
      and (v_after.at is null or (l.created_at, l.user_id) < (v_after.at, v_after.id))
    order by 1 desc, 2 desc
    limit v_limit + 1
  ) x;
  return private.to_page(v_rows, v_limit);
end;
$$;
revoke execute on function private.likers_page(text, uuid, text, integer) from public;
grant execute on function private.likers_page(text, uuid, text, integer) to anon, authenticated, service_role;
comment on function private.likers_page(text, uuid, text, integer) is
  'A page of who liked a post (p_kind post) or comment (p_kind comment), visible users only, newest first.';

create function public.post_likes(p_post_id uuid, p_cursor text default null, p_limit integer default null)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select private.likers_page('post', (private.find_post(p_post_id)).id, p_cursor, p_limit)
$$;
revoke execute on function public.post_likes(uuid, text, integer) from public;
grant execute on function public.post_likes(uuid, text, integer) to anon, authenticated, service_role;
comment on function public.post_likes(uuid, text, integer) is 'Who liked a visible post (visible users only), newest first.';

create function public.report_post(p_post_id uuid, p_reason text)
returns jsonb
language sql
volatile
set search_path = ''
as $$
  select private.file_report('post', null, (private.find_post(p_post_id)).id, null, p_reason)
$$;
revoke execute on function public.report_post(uuid, text) from public;
grant execute on function public.report_post(uuid, text) to authenticated, service_role;
comment on function public.report_post(uuid, text) is 'Report a visible post; one open report per reporter per post.';

-- supabase/schemas/14_api_comments.sql
-- API: comments, replies, their likes, deletion and reports.

create function private.add_comment(p_post_id uuid, p_parent_id uuid, p_body text)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_me uuid := private.require_uid();
  v_comment public.comments;
begin
  insert into public.comments (post_id, parent_id, body)
  values (p_post_id, p_parent_id, btrim(coalesce(p_body, '')))
  returning * into v_comment;
  return private.comment_json(v_comment, v_me);
end;
$$;
revoke execute on function private.add_comment(uuid, uuid, text) from public;
grant execute on function private.add_comment(uuid, uuid, text) to authenticated, service_role;
comment on function private.add_comment(uuid, uuid, text) is 'Writes the caller''s comment (a reply when p_parent_id is given).';

create function public.comment_post(p_post_id uuid, p_body text)
returns jsonb
language sql
volatile
set search_path = ''
as $$
  select private.add_comment((private.find_post(p_post_id)).id, null, p_body)
$$;
revoke execute on function public.comment_post(uuid, text) from public;
grant execute on function public.comment_post(uuid, text) to authenticated, service_role;
comment on function public.comment_post(uuid, text) is 'Comment on a visible post (1 to 500 characters).';

create function public.reply_comment(p_comment_id uuid, p_body text)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_parent public.comments := private.find_comment(p_comment_id);
begin
  return private.add_comment(v_parent.post_id, v_parent.id, p_body);
end;
$$;
revoke execute on function public.reply_comment(uuid, text) from public;
grant execute on function public.reply_comment(uuid, text) to authenticated, service_role;
comment on function public.reply_comment(uuid, text) is 'Reply to a visible comment (1 to 500 characters).';

create function public.get_comment(p_comment_id uuid)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select private.comment_json(private.find_comment(p_comment_id), private.uid())
$$;
revoke execute on function public.get_comment(uuid) from public;
grant execute on function public.get_comment(uuid) to anon, authenticated, service_role;
comment on function public.get_comment(uuid) is 'A visible comment; 404 otherwise.';

-- Top-level comments of a post (p_parent null) or replies to a comment, newest first.
create function private.comments_page(p_post_id uuid, p_parent_id uuid, p_cursor text, p_limit integer)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_viewer uuid := private.uid();
  v_limit integer := private.page_limit(p_limit);
  v_after record := private.decode_cursor(p_cursor);
  v_rows jsonb;
begin
  select coalesce(jsonb_agg(jsonb_build_object('at', x.created_at, 'id', x.id, 'item', private.comment_json(x, v_viewer))
         order by x.created_at desc, x.id desc), '[]'::jsonb)
  into v_rows
  from (
    select c.* from public.comments c
    where c.post_id = p_post_id
      and c.parent_id is not distinct from p_parent_id
      and (v_after.at is null or (c.created_at, c.id) < (v_after.at, v_after.id))
    order by c.created_at desc, c.id desc
    limit v_limit + 1
  ) x;
  return private.to_page(v_rows, v_limit);
end;
$$;
revoke execute on function private.comments_page(uuid, uuid, text, integer) from public;
grant execute on function private.comments_page(uuid, uuid, text, integer) to anon, authenticated, service_role;
comment on function private.comments_page(uuid, uuid, text, integer) is
  'A page of a post''s top-level comments (p_parent_id null) or of a comment''s replies, newest first.';

create function public.post_comments(p_post_id uuid, p_cursor text default null, p_limit integer default null)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select private.comments_page((private.find_post(p_post_id)).id, null, p_cursor, p_limit)
$$;
revoke execute on function public.post_comments(uuid, text, integer) from public;
grant execute on function public.post_comments(uuid, text, integer) to anon, authenticated, service_role;
comment on function public.post_comments(uuid, text, integer) is 'Top-level comments of a visible post by visible authors, newest first.';

create function public.comment_replies(p_comment_id uuid, p_cursor text default null, p_limit integer default null)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_parent public.comments := private.find_comment(p_comment_id);
begin
  return private.comments_page(v_parent.post_id, v_parent.id, p_cursor, p_limit);
end;
$$;
revoke execute on function public.comment_replies(uuid, text, integer) from public;
grant execute on function public.comment_replies(uuid, text, integer) to anon, authenticated, service_role;
comment on function public.comment_replies(uuid, text, integer) is 'Replies to a visible comment, newest first.';

create function public.like_comment(p_comment_id uuid, p_like boolean default null)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_me uuid := private.require_uid();
  v_comment public.comments := private.find_comment(p_comment_id);
  v_liked boolean := exists (select 1 from public.comment_likes l where l.comment_id = v_comment.id and l.user_id = v_me);
begin
  if coalesce(p_like, not v_liked) then
    insert into public.comment_likes (comment_id) values (v_comment.id) on conflict do nothing;
  else
    delete from public.comment_likes l where l.comment_id = v_comment.id and l.user_id = v_me;
  end if;
  return private.comment_json(private.find_comment(p_comment_id), v_me);
end;
$$;
revoke execute on function public.like_comment(uuid, boolean) from public;
grant execute on function public.like_comment(uuid, boolean) to authenticated, service_role;
comment on function public.like_comment(uuid, boolean) is 'Like or unlike a comment; p_like null toggles.';

create function public.comment_likes(p_comment_id uuid, p_cursor text default null, p_limit integer default null)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select private.likers_page('comment', (private.find_comment(p_comment_id)).id, p_cursor, p_limit)
$$;
revoke execute on function public.comment_likes(uuid, text, integer) from public;
grant execute on function public.comment_likes(uuid, text, integer) to anon, authenticated, service_role;
comment on function public.comment_likes(uuid, text, integer) is 'Who liked a visible comment (visible users only), newest first.';

-- The delete policy only reaches rows the caller can see. This deletes by right even a comment the caller
-- cannot see: a post's author keeps control of the comments under their post after blocking (or being
-- blocked by) the commenter, whose comment everyone else still sees.
create function private.delete_comment_by_right(p_comment_id uuid)
returns boolean
language sql
volatile
security definer
set search_path = ''
as $$
  with deleted as (
    delete from public.comments c
    where c.id = p_comment_id and private.may_delete_comment(c.author_id, c.post_id)
    returning c.id
  )
  select exists (select 1 from deleted)
$$;
revoke execute on function private.delete_comment_by_right(uuid) from public;
grant execute on function private.delete_comment_by_right(uuid) to authenticated, service_role;
comment on function private.delete_comment_by_right(uuid) is
  'Deletes the comment if the caller may (its author, the post''s author, an admin), even one hidden from them.';

create function public.delete_comment(p_comment_id uuid)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
begin
  perform private.require_uid();
  if not private.delete_comment_by_right(p_comment_id) then
    -- Not deleted: a 404 when the comment is missing or invisible to the caller, else a 403.
    perform private.find_comment(p_comment_id);
    perform private.fail(403, 'forbidden', 'Only the comment''s author, the post''s author or an admin may delete it');
  end if;
  return jsonb_build_object('deleted', true, 'id', p_comment_id);
end;
$$;
revoke execute on function public.delete_comment(uuid) from public;
grant execute on function public.delete_comment(uuid) to authenticated, service_role;
comment on function public.delete_comment(uuid) is 'Delete a comment and its replies (its author, the post''s author, or an admin).';

create function public.report_comment(p_comment_id uuid, p_reason text)
returns jsonb
language sql
volatile
set search_path = ''
as $$
  select private.file_report('comment', null, null, (private.find_comment(p_comment_id)).id, p_reason)
$$;
revoke execute on function public.report_comment(uuid, text) from public;
grant execute on function public.report_comment(uuid, text) to authenticated, service_role;
comment on function public.report_comment(uuid, text) is 'Report a visible comment; one open report per reporter per comment.';

-- supabase/schemas/15_api_moderation.sql
-- API: admin moderation. Reads are security invoker (RLS shows admins everything); the writes that touch
-- bans, Auth's tables or other people's rows run in security definer helpers that check admin first.

create function private.ban_history_json(p_entry public.ban_history)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select jsonb_build_object(
    'id', p_entry.id, 'element_type', p_entry.element_type, 'element_id', p_entry.element_id,
    'action', p_entry.action, 'reason', p_entry.reason, 'created_at', p_entry.created_at,
    'admin', private.author_json(p_entry.admin_id))
$$;
revoke execute on function private.ban_history_json(public.ban_history) from public;
grant execute on function private.ban_history_json(public.ban_history) to authenticated, service_role;
comment on function private.ban_history_json(public.ban_history) is 'A ban history entry as JSON, with the admin''s card.';

-- Every ban and unban says why: the history is what other admins read.
create function private.require_ban_reason(p_reason text)
returns text
language plpgsql
immutable
set search_path = ''
as $$
begin
  if char_length(btrim(coalesce(p_reason, ''))) not between 1 and 1000 then
    perform private.fail(400, 'invalid_reason', 'Give a reason of 1 to 1000 characters');
  end if;
  return btrim(p_reason);
end;
$$;
revoke execute on function private.require_ban_reason(text) from public;
grant execute on function private.require_ban_reason(text) to authenticated, service_role;
comment on function private.require_ban_reason(text) is 'The trimmed reason of a ban or unban; 400 unless it has 1 to 1000 characters.';

-- Users ------------------------------------------------------------------------------------------------
-- Banning hides the account and everything it wrote, refuses its logins (Auth's banned_until) and ends
-- its sessions, so its tokens stop working at once.
create function private.set_user_ban(p_user uuid, p_ban boolean, p_reason text)
returns void
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_admin uuid := private.require_admin();
  v_reason text := private.require_ban_reason(p_reason);
begin
  if p_ban then
    if exists (select 1 from private.admins a where a.user_id = p_user) then
      perform private.fail(409, 'cannot_ban_admin', 'Admins cannot be banned; revoke their admin rights first');
    end if;
    update public.profiles set banned_at = now() where id = p_user;
    update auth.users set banned_until = now() + interval '100 years' where id = p_user;
    delete from auth.sessions where user_id = p_user;
  else
    update public.profiles set banned_at = null where id = p_user;
    update auth.users set banned_until = null where id = p_user;
  end if;
  insert into public.ban_history (element_type, element_id, action, reason, admin_id)
  values ('user', p_user, case when p_ban then 'ban' else 'unban' end::public.ban_action, v_reason, v_admin);
end;
$$;
revoke execute on function private.set_user_ban(uuid, boolean, text) from public;
grant execute on function private.set_user_ban(uuid, boolean, text) to authenticated, service_role;
comment on function private.set_user_ban(uuid, boolean, text) is
  'Admins: bans (ending its sessions) or unbans an account in the profile and in Auth, and records why.';

create function public.admin_ban_user(p_username text, p_reason text default '', p_ban boolean default null)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_admin uuid := private.require_admin();
  v_user public.profiles := private.find_user(p_username);
  v_ban boolean := coalesce(p_ban, v_user.banned_at is null);
begin
  if v_ban = (v_user.banned_at is not null) then
    perform private.fail(409, case when v_ban then 'already_banned' else 'not_banned' end,
      format('@%s is %s', v_user.username, case when v_ban then 'already banned' else 'not banned' end));
  end if;
  perform private.set_user_ban(v_user.id, v_ban, p_reason);
  return jsonb_build_object('banned', v_ban,
    'user', private.profile_json((select p from public.profiles p where p.id = v_user.id), v_admin));
end;
$$;
revoke execute on function public.admin_ban_user(text, text, boolean) from public;
grant execute on function public.admin_ban_user(text, text, boolean) to authenticated, service_role;
comment on function public.admin_ban_user(text, text, boolean) is 'Admins: ban or unban a user (p_ban null toggles), with a reason.';

create function private.delete_banned_user(p_user uuid)
returns void
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  perform private.require_admin();
  if not exists (select 1 from public.profiles p where p.id = p_user and p.banned_at is not null) then
    perform private.fail(409, 'not_banned', 'Only a banned user can be deleted by an admin');
  end if;
  insert into private.banned_emails (email)
  select lower(u.email) from auth.users u where u.id = p_user and u.email is not null
  on conflict do nothing;
  delete from auth.users where id = p_user;
end;
$$;
revoke execute on function private.delete_banned_user(uuid) from public;
grant execute on function private.delete_banned_user(uuid) to authenticated, service_role;
comment on function private.delete_banned_user(uuid) is
  'Admins: deletes a banned account from Auth (and so all it owns), keeping its e-mail in private.banned_emails.';

create function public.admin_delete_banned_user(p_username text)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_user public.profiles;
begin
  perform private.require_admin();
  v_user := private.find_user(p_username);
  perform private.delete_banned_user(v_user.id);
  return jsonb_build_object('deleted', true, 'id', v_user.id, 'username', v_user.username);
end;
$$;
revoke execute on function public.admin_delete_banned_user(text) from public;
grant execute on function public.admin_delete_banned_user(text) to authenticated, service_role;
comment on function public.admin_delete_banned_user(text) is
  'Admins: delete a banned user and all they own; their e-mail cannot register again.';

-- Posts ------------------------------------------------------------------------------------------------
create function private.set_post_ban(p_post uuid, p_ban boolean, p_reason text)
returns void
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_admin uuid := private.require_admin();
  v_reason text := private.require_ban_reason(p_reason);
begin
  update public.posts set banned_at = case when p_ban then now() end where id = p_post;
  insert into public.ban_history (element_type, element_id, action, reason, admin_id)
  values ('post', p_post, case when p_ban then 'ban' else 'unban' end::public.ban_action, v_reason, v_admin);
end;
$$;
revoke execute on function private.set_post_ban(uuid, boolean, text) from public;
grant execute on function private.set_post_ban(uuid, boolean, text) to authenticated, service_role;
comment on function private.set_post_ban(uuid, boolean, text) is 'Admins: bans or unbans a post and records why.';

create function public.admin_ban_post(p_post_id uuid, p_reason text default '', p_ban boolean default null)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_admin uuid := private.require_admin();
  v_post public.posts := private.find_post(p_post_id);
  v_ban boolean := coalesce(p_ban, v_post.banned_at is null);
begin
  if v_ban = (v_post.banned_at is not null) then
    perform private.fail(409, case when v_ban then 'already_banned' else 'not_banned' end,
      case when v_ban then 'The post is already banned' else 'The post is not banned' end);
  end if;
  perform private.set_post_ban(v_post.id, v_ban, p_reason);
  return jsonb_build_object('banned', v_ban, 'post', private.post_json(private.find_post(p_post_id), v_admin));
end;
$$;
revoke execute on function public.admin_ban_post(uuid, text, boolean) from public;
grant execute on function public.admin_ban_post(uuid, text, boolean) to authenticated, service_role;
comment on function public.admin_ban_post(uuid, text, boolean) is 'Admins: ban or unban a post (p_ban null toggles), with a reason.';

create function public.admin_delete_banned_post(p_post_id uuid)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_post public.posts;
begin
  perform private.require_admin();
  v_post := private.find_post(p_post_id);
  if v_post.banned_at is null then
    perform private.fail(409, 'not_banned', 'Only a banned post can be deleted by an admin');
  end if;
  delete from public.posts p where p.id = v_post.id;
  return jsonb_build_object('deleted', true, 'id', v_post.id);
end;
$$;
revoke execute on function public.admin_delete_banned_post(uuid) from public;
grant execute on function public.admin_delete_banned_post(uuid) to authenticated, service_role;
comment on function public.admin_delete_banned_post(uuid) is 'Admins: delete a banned post.';

-- Reports ----------------------------------------------------------------------------------------------
-- Reported elements, from their summary rows (private.reported_elements): how many open reports, when the
-- latest came, and the latest five.
create function public.admin_reports(
  p_type public.report_target default null, p_cursor text default null, p_limit integer default null
)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_limit integer;
  v_after record;
  v_rows jsonb;
begin
  perform private.require_admin();
  v_limit := private.page_limit(p_limit);
  v_after := private.decode_cursor(p_cursor);
  select coalesce(jsonb_agg(jsonb_build_object('at', g.latest_at, 'id', g.target_id, 'item', jsonb_build_object(
           'target_type', g.target_type, 'target_id', g.target_id, 'reports_count', g.reports_count,
           'latest_at', g.latest_at,
           'latest_reports', (
             select jsonb_agg(jsonb_build_object('id', r.id, 'reason', r.reason, 'created_at', r.created_at,
                      'reporter', private.author_json(r.reporter_id)) order by r.created_at desc)
             from (select * from public.reports r2
                   where coalesce(r2.target_user_id, r2.target_post_id, r2.target_comment_id) = g.target_id
                   order by coalesce(r2.target_user_id, r2.target_post_id, r2.target_comment_id), r2.created_at desc
                   limit 5) r)))
         order by g.latest_at desc, g.target_id desc), '[]'::jsonb)
  into v_rows
  from (
    select e.* from private.reported_elements e
    where (p_type is null or e.target_type = p_type)
      -- No "cursor is null or …": a condition the index can serve in a generic plan too.
      and (e.latest_at, e.target_id)
        < (coalesce(v_after.at, 'infinity'), coalesce(v_after.id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
    order by e.latest_at desc, e.target_id desc
    limit v_limit + 1
  ) g;
  return private.to_page(v_rows, v_limit);
end;
$$;
revoke execute on function public.admin_reports(public.report_target, text, integer) from public;
grant execute on function public.admin_reports(public.report_target, text, integer) to authenticated, service_role;
comment on function public.admin_reports(public.report_target, text, integer) is
  'Admins: reported elements grouped, with counts and the latest reasons; filter by type.';

create function public.admin_dismiss_report(p_report_id uuid)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
begin
  perform private.require_admin();
  delete from public.reports r where r.id = p_report_id;
  if not found then
    perform private.fail(404, 'report_not_found', 'Report not found');
  end if;
  return jsonb_build_object('deleted', true, 'id', p_report_id);
end;
$$;
revoke execute on function public.admin_dismiss_report(uuid) from public;
grant execute on function public.admin_dismiss_report(uuid) to authenticated, service_role;
comment on function public.admin_dismiss_report(uuid) is 'Admins: dismiss (delete) a report.';

-- Bans -------------------------------------------------------------------------------------------------
create function public.admin_bans(
  p_type public.ban_element default null, p_cursor text default null, p_limit integer default null
)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_admin uuid;
  v_limit integer;
  v_after record;
  v_rows jsonb;
begin
  v_admin := private.require_admin();
  v_limit := private.page_limit(p_limit);
  v_after := private.decode_cursor(p_cursor);
  select coalesce(jsonb_agg(jsonb_build_object('at', b.banned_at, 'id', b.id, 'item', b.item)
         order by b.banned_at desc, b.id desc), '[]'::jsonb)
  into v_rows
  from (
    select * from (
      select p.banned_at, p.id, jsonb_build_object('type', 'user', 'banned_at', p.banned_at,
               'user', private.profile_json(p, v_admin)) as item
      from public.profiles p
      where p.banned_at is not null and (p_type is null or p_type = 'user')
      union all
      select x.banned_at, x.id, jsonb_build_object('type', 'post', 'banned_at', x.banned_at,
               'post', private.post_json(x, v_admin))
      from public.posts x
      where x.banned_at is not null and (p_type is null or p_type = 'post')
    ) u
    where v_after.at is null or (u.banned_at, u.id) < (v_after.at, v_after.id)
    order by u.banned_at desc, u.id desc
    limit v_limit + 1
  ) b;
  return private.to_page(v_rows, v_limit);
end;
$$;
revoke execute on function public.admin_bans(public.ban_element, text, integer) from public;
grant execute on function public.admin_bans(public.ban_element, text, integer) to authenticated, service_role;
comment on function public.admin_bans(public.ban_element, text, integer) is 'Admins: users and posts banned now, latest first.';

create function private.ban_history_page(p_element uuid, p_admin uuid, p_cursor text, p_limit integer)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_limit integer;
  v_after record;
  v_rows jsonb;
begin
  perform private.require_admin();
  v_limit := private.page_limit(p_limit);
  v_after := private.decode_cursor(p_cursor);
  select coalesce(jsonb_agg(jsonb_build_object('at', h.created_at, 'id', h.id, 'item', private.ban_history_json(h))
         order by h.created_at desc, h.id desc), '[]'::jsonb)
  into v_rows
  from (
    select * from public.ban_history b
    where (p_element is null or b.element_id = p_element)
      and (p_admin is null or b.admin_id = p_admin)
      and (v_after.at is null or (b.created_at, b.id) < (v_after.at, v_after.id))
    order by b.created_at desc, b.id desc
    limit v_limit + 1
  ) h;
  return private.to_page(v_rows, v_limit);
end;
$$;
revoke execute on function private.ban_history_page(uuid, uuid, text, integer) from public;
grant execute on function private.ban_history_page(uuid, uuid, text, integer) to authenticated, service_role;
comment on function private.ban_history_page(uuid, uuid, text, integer) is
  'Admins: a page of the ban history of one element or one admin (null: any), latest first.';

create function public.admin_ban_history(p_element_id uuid, p_cursor text default null, p_limit integer default null)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select private.ban_history_page(p_element_id, null, p_cursor, p_limit)
$$;
revoke execute on function public.admin_ban_history(uuid, text, integer) from public;
grant execute on function public.admin_ban_history(uuid, text, integer) to authenticated, service_role;
comment on function public.admin_ban_history(uuid, text, integer) is 'Admins: every ban and unban of one user or post, latest first.';

create function public.admin_ban_history_by_admin(p_username text, p_cursor text default null, p_limit integer default null)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
begin
  perform private.require_admin();
  return private.ban_history_page(null, (private.find_user(p_username)).id, p_cursor, p_limit);
end;
$$;
revoke execute on function public.admin_ban_history_by_admin(text, text, integer) from public;
grant execute on function public.admin_ban_history_by_admin(text, text, integer) to authenticated, service_role;
comment on function public.admin_ban_history_by_admin(text, text, integer) is 'Admins: the bans and unbans one admin made, latest first.';

-- Granting admin: only the database owner (SQL editor, Studio, `npm run grant-admin -- <username>`).
create function private.grant_admin(p_username text, p_grant boolean default true)
returns boolean
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_user uuid := (select p.id from public.profiles p where p.username = lower(btrim(p_username)));
begin
  if v_user is null then
    raise exception 'no user "%"', p_username;
  end if;
  if p_grant then
    insert into private.admins (user_id) values (v_user) on conflict do nothing;
  else
    delete from private.admins where user_id = v_user;
  end if;
  return p_grant;
end;
$$;
revoke execute on function private.grant_admin(text, boolean) from public;
grant execute on function private.grant_admin(text, boolean) to service_role;
comment on function private.grant_admin(text, boolean) is 'Grant (or with false, revoke) admin rights to a username.';

-- supabase/schemas/16_api_account.sql
-- API: the caller's own account: their profile with their e-mail, profile edits, and the checks the
-- facade makes around Supabase Auth (registration, login by username).

create function private.my_email()
returns text
language sql
stable
security definer
set search_path = ''
as $$
  select u.email from auth.users u where u.id = private.uid()
$$;
revoke execute on function private.my_email() from public;
grant execute on function private.my_email() to authenticated, service_role;
comment on function private.my_email() is 'The caller''s e-mail, from Auth.';

create function public.me()
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_me uuid := private.require_uid();
begin
  return private.profile_json((select p from public.profiles p where p.id = v_me), v_me)
    || jsonb_build_object('email', private.my_email());
end;
$$;
revoke execute on function public.me() from public;
grant execute on function public.me() to authenticated, service_role;
comment on function public.me() is 'The caller''s own profile, with their e-mail (shown to nobody else).';

-- p_changes holds the fields to change: username, display_name, bio, time_zone, is_private, avatar_url.
create function public.update_profile(p_changes jsonb)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_me uuid := private.require_uid();
begin
  if jsonb_typeof(p_changes) is distinct from 'object'
     or exists (select 1 from jsonb_object_keys(p_changes) k
                where k not in ('username', 'display_name', 'bio', 'time_zone', 'is_private', 'avatar_url')) then
    perform private.fail(400, 'invalid_changes',
      'Changes are an object of username, display_name, bio, time_zone, is_private and avatar_url');
  end if;
  -- The constraints hold anyway; these give the precise error.
  if p_changes ? 'username' and coalesce(lower(btrim(p_changes ->> 'username')), '') !~ '^[a-z0-9._]{3,30}$' then
    perform private.fail(400, 'invalid_username', 'A username is 3 to 30 of a-z, 0-9, dot and underscore');
  end if;
  if p_changes ? 'time_zone' and not private.is_time_zone(coalesce(p_changes ->> 'time_zone', '')) then
    perform private.fail(400, 'invalid_time_zone', format('"%s" is not a time zone name such as Europe/Paris', p_changes ->> 'time_zone'));
  end if;
  update public.profiles p set
    username = case when p_changes ? 'username' then p_changes ->> 'username' else p.username end,
    display_name = case when p_changes ? 'display_name' then coalesce(p_changes ->> 'display_name', '') else p.display_name end,
    bio = case when p_changes ? 'bio' then coalesce(p_changes ->> 'bio', '') else p.bio end,
    time_zone = case when p_changes ? 'time_zone' then p_changes ->> 'time_zone' else p.time_zone end,
    is_private = case when p_changes ? 'is_private' then (p_changes ->> 'is_private')::boolean else p.is_private end,
    avatar_url = case when p_changes ? 'avatar_url' then p_changes ->> 'avatar_url' else p.avatar_url end
  where p.id = v_me;
  return public.me();
end;
$$;
revoke execute on function public.update_profile(jsonb) from public;
grant execute on function public.update_profile(jsonb) to authenticated, service_role;
comment on function public.update_profile(jsonb) is 'Edit the caller''s profile; the same rules as at registration apply.';

create function public.reset_profile_picture()
returns jsonb
language sql
volatile
set search_path = ''
as $$
  select public.update_profile('{"avatar_url": null}'::jsonb)
$$;
revoke execute on function public.reset_profile_picture() from public;
grant execute on function public.reset_profile_picture() to authenticated, service_role;
comment on function public.reset_profile_picture() is 'Back to the default avatar.';

-- Before asking Auth to create an account: is the username free and valid, and the time zone known?
-- The same rules hold again in the sign-up trigger; this only gives the caller a precise error.
create function private.check_registration(p_username text, p_email text, p_time_zone text default 'UTC')
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_username text := lower(btrim(coalesce(p_username, '')));
begin
  if v_username !~ '^[a-z0-9._]{3,30}$' then
    perform private.fail(400, 'invalid_username', 'A username is 3 to 30 of a-z, 0-9, dot and underscore');
  end if;
  if exists (select 1 from private.reserved_usernames r where r.name = v_username) then
    perform private.fail(400, 'username_reserved', format('The username "%s" is reserved', v_username));
  end if;
  if exists (select 1 from public.profiles p where p.username = v_username) then
    perform private.fail(409, 'username_taken', format('The username "%s" is taken', v_username));
  end if;
  if not private.is_time_zone(coalesce(p_time_zone, 'UTC')) then
    perform private.fail(400, 'invalid_time_zone', format('"%s" is not a time zone name such as Europe/Paris', p_time_zone));
  end if;
  -- p_email is not checked here: the e-mail's own rules (banned, awaiting confirmation) are checked behind
  -- Auth's rate limits, by the sign-up trigger and the facade, not in this open function.
  return jsonb_build_object('username', v_username, 'available', true);
end;
$$;
revoke execute on function private.check_registration(text, text, text) from public;
grant execute on function private.check_registration(text, text, text) to anon, authenticated, service_role;
comment on function private.check_registration(text, text, text) is
  'Raises the precise error unless the username is valid and free and the time zone known.';

create function public.check_registration(p_username text, p_email text, p_time_zone text default 'UTC')
returns jsonb
language sql
stable
set search_path = ''
as $$
  select private.check_registration(p_username, p_email, p_time_zone)
$$;
revoke execute on function public.check_registration(text, text, text) from public;
grant execute on function public.check_registration(text, text, text) to anon, authenticated, service_role;
comment on function public.check_registration(text, text, text) is
  'Whether the username is valid and free and the time zone known; raises the precise error if not.';

-- Whether an address's account still awaits confirmation. Registering it again is refused (409): Supabase
-- Auth would answer "check your e-mail" and keep the first registrant's password, so a second registrant who
-- entered the code would confirm an account someone else holds the password of. The owner of the address
-- is e-mailed a reset code that sets their own password. Only the facade asks, as service_role, and answers
-- only after a rate-limited call to Auth (the reset e-mail), so no client gets an unthrottled oracle.
create function private.awaits_confirmation(p_email text)
returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select exists (
    select 1 from auth.users u
    where lower(u.email) = lower(btrim(p_email)) and u.email_confirmed_at is null
  )
$$;
revoke execute on function private.awaits_confirmation(text) from public;
grant execute on function private.awaits_confirmation(text) to service_role;
comment on function private.awaits_confirmation(text) is 'Whether the account of that e-mail exists and awaits confirmation.';

-- Login by username: the account's e-mail. Null for an unknown username; the facade then answers exactly as
-- for a wrong password. The e-mail behind a username is for the facade's login alone, which asks as
-- service_role: no client role may read it, even through a direct SQL session or a future exposure of the
-- private schema.
create function private.email_for_login(p_username text)
returns text
language sql
stable
security definer
set search_path = ''
as $$
  select u.email from public.profiles p join auth.users u on u.id = p.id
  where p.username = lower(btrim(p_username))
$$;
revoke execute on function private.email_for_login(text) from public;
grant execute on function private.email_for_login(text) to service_role;
comment on function private.email_for_login(text) is 'The e-mail of the account of that username; null for an unknown one.';
