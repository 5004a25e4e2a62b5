-- Stricter profile values: real time zone names, storage paths for avatars and media, display names that
-- cannot pass for someone else's, no banned e-mail by an e-mail change. Existing rows are brought in line
-- before each rule applies to them.

-- The IANA time zone names an account may choose, copied from Postgres's own list when the migration runs.
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

create or replace function private.is_time_zone(p_name text)
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

-- profiles.time_zone checks private.is_time_zone on every write of the row: an old POSIX zone would make
-- every later update of the profile fail, counters included.
update public.profiles set time_zone = 'UTC' where not private.is_time_zone(time_zone);

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

update public.profiles set avatar_url = null where not private.is_storage_path(avatar_url);
alter table public.profiles drop constraint profiles_avatar_url_check;
alter table public.profiles add constraint profiles_avatar_url_check check (private.is_storage_path(avatar_url));
comment on column public.profiles.avatar_url is 'Path of the avatar in the storage bucket; null means the default avatar.';

create or replace function private.is_media_list(p_media text[])
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

-- No control characters, and no bidirectional overrides that would make a name read as someone else's.
update public.profiles set display_name = regexp_replace(display_name, '[[:cntrl:]\u200E\u200F\u202A-\u202E\u2066-\u2069]', '', 'g')
where display_name ~ '[[:cntrl:]\u200E\u200F\u202A-\u202E\u2066-\u2069]';
alter table public.profiles drop constraint profiles_display_name_check;
alter table public.profiles add constraint profiles_display_name_check
  check (char_length(display_name) <= 50 and display_name !~ '[[:cntrl:]\u200E\u200F\u202A-\u202E\u2066-\u2069]');
comment on column public.profiles.display_name is 'Free text, at most 50 characters; no control or bidirectional override characters.';

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

-- Nor may an existing account take such an address by an e-mail change (Auth keeps the requested address in
-- email_change until it is confirmed, then moves it to email).
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

create trigger refuse_banned_email_change
before update of email, email_change on auth.users
for each row
when (old.email is distinct from new.email or old.email_change is distinct from new.email_change)
execute function private.refuse_banned_email_change();

-- Sign-up (Auth inserts into auth.users): refuse banned e-mails, then create the profile from the
-- sign-up metadata (username, display_name, time_zone), or derive a username when none was given.
create or replace function private.create_profile_for_new_user()
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

-- Before asking Auth to create an account: is the username free and valid, and the time zone known?
-- The same rules hold again in the sign-up trigger; this only gives the caller a precise error.
create or replace function private.check_registration(p_username text, p_email text, p_time_zone text default 'UTC')
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
  -- p_email stays for existing callers; the e-mail's own rules (banned, awaiting confirmation) are checked
  -- behind Auth's rate limits, by the sign-up trigger and the facade, not in this open function.
  return jsonb_build_object('username', v_username, 'available', true);
end;
$$;
revoke execute on function private.check_registration(text, text, text) from public;
grant execute on function private.check_registration(text, text, text) to anon, authenticated, service_role;
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
