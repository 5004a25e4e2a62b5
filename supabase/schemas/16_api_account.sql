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
  return private.profile_item(v_me)
    || jsonb_build_object('email', private.my_email(), 'unread_notifications', private.unread_notifications());
end;
$$;
revoke execute on function public.me() from public;
grant execute on function public.me() to authenticated, service_role;
comment on function public.me() is
  'The caller''s own profile, with their e-mail (shown to nobody else) and how many notifications they have unread.';

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
  if p_changes = '{}'::jsonb then
    return public.me(); -- nothing to write (PUT /user with only a new e-mail or password): no profile edit counted
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
