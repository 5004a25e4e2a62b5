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

-- Each user's files live in their own folder of a bucket, `<user id>/…`: Supabase Storage lets a user write
-- only there (supabase/schemas/18_storage.sql), and a profile or a post may point only there, so nobody
-- passes off someone else's file as theirs.
create function private.in_own_folder(p_owner uuid, p_path text)
returns boolean
language sql
immutable
set search_path = ''
as $$
  select split_part(p_path, '/', 1) = p_owner::text and p_path like '%/_%'
$$;
revoke execute on function private.in_own_folder(uuid, text) from public;
grant execute on function private.in_own_folder(uuid, text) to anon, authenticated, service_role;
comment on function private.in_own_folder(uuid, text) is
  'True for a storage path in the owner''s own folder (<owner id>/…); null for null.';

-- Fixed first path segments of the API and obvious impostors; nobody may take them as a username.
create table private.reserved_usernames (
  name text primary key check (name = lower(name))
);
alter table private.reserved_usernames enable row level security;
insert into private.reserved_usernames (name) values
  ('admin'), ('administrator'), ('api'), ('auth'), ('blocks'), ('close_friends'), ('comment'), ('comments'),
  ('date'), ('daykeeper'), ('docs'), ('feed'), ('follow_requests'), ('health'), ('help'), ('login'), ('logout'),
  ('me'), ('mod'), ('moderator'), ('notifications'), ('null'), ('openapi.json'), ('post'), ('posts'), ('register'),
  ('resetprofilepicture'), ('root'), ('search'), ('security'), ('staff'), ('supabase'), ('support'), ('system'),
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
  updated_at timestamptz not null default now(),
  constraint profiles_avatar_in_own_folder check (private.in_own_folder(id, avatar_url))
);
alter table public.profiles enable row level security;
-- The admins' list of banned accounts, in ban order (like banned posts): each page is a keyset read.
create index profiles_banned_idx on public.profiles (banned_at desc, id desc) where banned_at is not null;
-- Search by likeness: names holding a word like the text (pg_trgm word similarity, private.account_matches).
create index profiles_username_trgm_idx on public.profiles using gin (username extensions.gin_trgm_ops);
create index profiles_display_name_trgm_idx on public.profiles using gin (display_name extensions.gin_trgm_ops);
-- Names starting with a text, the shortest first (private.account_matches): by length, then in byte order,
-- so each length's matches are one range; the id is included so the range is read from the index alone.
-- Only accounts search may show (confirmed, not banned): look-alike sign-ups never confirmed cannot fill a
-- search's bound and hide the account they imitate.
create index profiles_username_prefix_idx on public.profiles (char_length(username), (username collate "C")) include (id)
  where confirmed_at is not null and banned_at is null;
create index profiles_display_name_prefix_idx on public.profiles (char_length(display_name), (lower(display_name) collate "C")) include (id)
  where confirmed_at is not null and banned_at is null;

comment on table public.profiles is 'The public face of an account. E-mail is not here: only its owner sees it, through Auth.';
comment on column public.profiles.id is 'The Supabase Auth user id; the profile goes with the user.';
comment on column public.profiles.username is 'Unique, 3 to 30 of a-z 0-9 . _ (stored lowercase; input is lowercased).';
comment on column public.profiles.display_name is 'Free text, at most 50 characters; no control or bidirectional override characters.';
comment on column public.profiles.bio is 'Free text, at most 500 characters.';
comment on column public.profiles.avatar_url is 'Path of the avatar in the avatars bucket, in the account''s own folder (<id>/…); null means the default avatar.';
comment on column public.profiles.time_zone is 'IANA time zone; fixes the day of each new post.';
comment on column public.profiles.is_private is 'Private accounts show posts, calendar and follow lists to accepted followers only.';
comment on column public.profiles.followers_count is 'Accepted followers (kept by triggers; not writable).';
comment on column public.profiles.following_count is 'Accounts this one follows (kept by triggers; not writable).';
comment on column public.profiles.posts_count is 'Posts written, whatever their privacy (kept by triggers; not writable).';
comment on column public.profiles.confirmed_at is 'When the e-mail was confirmed; unconfirmed accounts are invisible.';
comment on column public.profiles.banned_at is 'Set while an admin bans the account; banned accounts are invisible.';
comment on column public.profiles.created_at is 'When the account signed up.';
comment on column public.profiles.updated_at is 'Last change of the profile row (set by trigger).';

-- Usernames are compared lowercased; reserved and taken names get their own error codes, and so do a username
-- or time zone the table's checks would refuse (an edit in Studio is told as the API tells it, not by the name
-- of a constraint).
create function private.normalize_profile()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  -- A profile belongs to an Auth account, which Auth's sign-up makes first (a row for none would name a foreign key).
  if tg_op = 'INSERT' and not exists (select 1 from auth.users u where u.id = new.id) then
    perform private.fail(404, 'user_not_found',
      'No Auth account has this id: a profile is made with its account (Authentication > Add user in Studio)');
  end if;
  new.username := lower(btrim(new.username));
  if new.time_zone is not null and (tg_op = 'INSERT' or new.time_zone is distinct from old.time_zone)
     and not private.is_time_zone(new.time_zone) then
    perform private.fail(400, 'invalid_time_zone', format('"%s" is not a time zone name such as Europe/Paris', new.time_zone));
  end if;
  if tg_op = 'UPDATE' then
    new.updated_at := now();
    if new.username = old.username then
      return new;
    end if;
  end if;
  if new.username !~ '^[a-z0-9._]{3,30}$' then
    perform private.fail(400, 'invalid_username', 'A username is 3 to 30 of a-z, 0-9, dot and underscore');
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
  'Trigger: lowercases the username, refuses malformed, reserved and taken ones and unknown time zones, stamps updated_at.';

create trigger normalize_profile
before insert or update on public.profiles
for each row execute function private.normalize_profile();
