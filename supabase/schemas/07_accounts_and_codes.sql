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

-- A profile deleted directly (a row deleted in Studio) takes its Auth account with it, as deleting the account
-- takes the profile: no account is left able to sign in without a profile. A banned one's e-mail stays
-- refused, as when an admin deletes a banned user. (When Auth deletes the account, its row is gone already.)
create function private.delete_account_of_profile()
returns trigger
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  if old.banned_at is not null then
    insert into private.banned_emails (email)
    select lower(u.email) from auth.users u where u.id = old.id and u.email is not null
    on conflict do nothing;
  end if;
  delete from auth.users u where u.id = old.id;
  return null;
end;
$$;
revoke execute on function private.delete_account_of_profile() from public;
comment on function private.delete_account_of_profile() is 'Trigger: deleting a profile deletes its Auth account.';

create trigger delete_account_of_profile
after delete on public.profiles
for each row execute function private.delete_account_of_profile();

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
