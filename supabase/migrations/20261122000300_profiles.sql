-- Profiles: the public face of an account, one per Supabase Auth user, made by a trigger on auth.users.

create function private.is_time_zone(p_name text)
returns boolean
language plpgsql
immutable
set search_path = ''
as $$
begin
  perform now() at time zone p_name;
  return p_name !~ '^\s|\s$' and p_name <> '';
exception when others then
  return false;
end;
$$;
revoke execute on function private.is_time_zone(text) from public;
grant execute on function private.is_time_zone(text) to anon, authenticated, service_role;

comment on function private.is_time_zone(text) is 'True for a time zone name Postgres knows (IANA names such as Europe/Paris).';

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

create table public.profiles (
  id uuid primary key references auth.users (id) on delete cascade,
  username text not null unique check (username ~ '^[a-z0-9._]{3,30}$'),
  display_name text not null default '' check (char_length(display_name) <= 50),
  bio text not null default '' check (char_length(bio) <= 500),
  avatar_url text check (char_length(avatar_url) between 1 and 500),
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

comment on table public.profiles is 'The public face of an account. E-mail is not here: only its owner sees it, through Auth.';
comment on column public.profiles.username is 'Unique, 3 to 30 of a-z 0-9 . _ (stored lowercase; input is lowercased).';
comment on column public.profiles.display_name is 'Free text, at most 50 characters.';
comment on column public.profiles.bio is 'Free text, at most 500 characters.';
comment on column public.profiles.avatar_url is 'Reference to the avatar in storage; null means the default avatar.';
comment on column public.profiles.time_zone is 'IANA time zone; fixes the day of each new post.';
comment on column public.profiles.is_private is 'Private accounts show posts, calendar and follow lists to accepted followers only.';
comment on column public.profiles.followers_count is 'Accepted followers (kept by triggers; not writable).';
comment on column public.profiles.following_count is 'Accounts this one follows (kept by triggers; not writable).';
comment on column public.profiles.posts_count is 'Posts written, whatever their privacy (kept by triggers; not writable).';
comment on column public.profiles.confirmed_at is 'When the e-mail was confirmed; unconfirmed accounts are invisible.';
comment on column public.profiles.banned_at is 'Set while an admin bans the account; banned accounts are invisible.';

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

create trigger normalize_profile
before insert or update on public.profiles
for each row execute function private.normalize_profile();

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

-- E-mails of deleted banned accounts: they cannot register again.
create table private.banned_emails (
  email text primary key check (email = lower(email)),
  banned_at timestamptz not null default now()
);
alter table private.banned_emails enable row level security;

comment on table private.banned_emails is 'E-mails of banned accounts that were deleted; sign-up with them is refused.';

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
  if exists (select 1 from private.banned_emails b where b.email = lower(new.email)) then
    perform private.fail(403, 'email_banned', 'This e-mail address belongs to a banned account');
  end if;
  if not private.is_time_zone(v_time_zone) then
    v_time_zone := 'UTC';
  end if;
  insert into public.profiles (id, username, display_name, time_zone, confirmed_at)
  values (
    new.id,
    coalesce(nullif(v_meta ->> 'username', ''), private.derive_username(new.email)),
    left(coalesce(v_meta ->> 'display_name', v_meta ->> 'full_name', ''), 50),
    v_time_zone,
    new.email_confirmed_at
  );
  return new;
end;
$$;
revoke execute on function private.create_profile_for_new_user() from public;

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

create trigger sync_profile_confirmation
after update of email_confirmed_at on auth.users
for each row
when (old.email_confirmed_at is distinct from new.email_confirmed_at)
execute function private.sync_profile_confirmation();
