-- Who may set an account's password, whatever the door (docs/ACCOUNTS-SECURITY.md, "Credentials"). Supabase Auth
-- asks for the current password (`require_current_password`) except in two cases, each of which would let the
-- thief of an access token set a password with the token alone and keep the account for good:
--   - the account has no password (a Google sign-up, an e-mailed-code sign-up): Auth has nothing to ask. Here every
--     account has one: Auth's empty password becomes an unknowable one, so a first password is chosen as a
--     forgotten one is, with a reset code from the mailbox;
--   - the session was begun with a reset or magic-link code (Auth's `otp` claim), for the session's whole life.
--     Here the code proves the mailbox for 10 minutes and once: a session may set a password within 10 minutes of
--     its code, once; after that (at its next refresh, or when it sets one) its claim becomes `email/signup`,
--     which Auth holds to the current password like a password sign-in.
-- Admins (Auth's admin API, Studio) set passwords as before: those changes end every session.

-- The unknowable passwords given, each while it is the account's: the code e-mails tell an account whose owner
-- knows no password from one whose owner does (private.account_mail_facts, 36_account_doors.sql). A password set
-- since (a reset, an admin) is another hash, so the row no longer matches; the row goes with the account. The key
-- is checked at commit: the row is written before Auth's insert of the account.
create table private.unknowable_passwords (
  user_id uuid primary key references auth.users (id) on delete cascade deferrable initially deferred,
  encrypted_password text not null
);
alter table private.unknowable_passwords enable row level security;

comment on table private.unknowable_passwords is
  'The unknowable password each account without one was given (its hash): while it is the account''s, its owner knows no password.';
comment on column private.unknowable_passwords.encrypted_password is 'The hash given; the account has another once a password is set.';

create function private.give_unknowable_password()
returns trigger
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  -- bcrypt at Auth's own cost, so a wrong password takes as long to refuse as for any account.
  new.encrypted_password := extensions.crypt(
    encode(extensions.gen_random_bytes(32), 'base64'), extensions.gen_salt('bf', 10));
  insert into private.unknowable_passwords (user_id, encrypted_password)
  values (new.id, new.encrypted_password)
  on conflict (user_id) do update set encrypted_password = excluded.encrypted_password;
  return new;
end;
$$;
revoke execute on function private.give_unknowable_password() from public;
comment on function private.give_unknowable_password() is
  'Trigger on auth.users: an account without a password gets an unknowable one (recorded in private.unknowable_passwords), so Auth asks the current password before any change.';

create trigger give_unknowable_password
before insert or update of encrypted_password on auth.users
for each row
when (coalesce(new.encrypted_password, '') = '')
execute function private.give_unknowable_password();

-- A code session's claim after its 10 minutes, or once it has set a password: `email/signup`, which Auth holds to
-- the current password. (A session with both claims keeps the one.)
create function private.end_code_exemption(p_session_id uuid)
returns void
language sql
volatile
security definer
set search_path = ''
as $$
  delete from auth.mfa_amr_claims c
  where c.session_id = p_session_id and c.authentication_method = 'otp'
    and exists (select 1 from auth.mfa_amr_claims o where o.session_id = p_session_id and o.authentication_method = 'email/signup');
  update auth.mfa_amr_claims c set authentication_method = 'email/signup', updated_at = now()
  where c.session_id = p_session_id and c.authentication_method = 'otp';
$$;
revoke execute on function private.end_code_exemption(uuid) from public;
comment on function private.end_code_exemption(uuid) is
  'A code session is held to the current password from now on: its otp claim becomes email/signup.';

create function private.end_stale_code_exemption()
returns trigger
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  if exists (select 1 from auth.mfa_amr_claims c
             where c.session_id = new.id and c.authentication_method = 'otp' and c.created_at < now() - interval '10 minutes') then
    perform private.end_code_exemption(new.id);
  end if;
  return null;
end;
$$;
revoke execute on function private.end_stale_code_exemption() from public;
comment on function private.end_stale_code_exemption() is
  'Trigger on auth.sessions: a refresh of a code session older than 10 minutes ends its exemption from the current password.';

create trigger end_stale_code_exemption
after update of refreshed_at on auth.sessions
for each row execute function private.end_stale_code_exemption();

-- A password change through Auth's own door (PUT /auth/v1/user) ends every other session of the account in the
-- same transaction (DELETE ... WHERE id <> the caller's), so the session left is the caller's. An admin's change
-- ends them all, and leaves none. The note is for the transaction only.
create function private.note_password_change()
returns trigger
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  perform set_config('private.password_changed_for', new.id::text, true);
  return null;
end;
$$;
revoke execute on function private.note_password_change() from public;
comment on function private.note_password_change() is
  'Trigger on auth.users: notes, for the transaction, the account whose password just changed.';

create trigger note_password_change
after update of encrypted_password on auth.users
for each row
when (old.encrypted_password is distinct from new.encrypted_password)
execute function private.note_password_change();

create function private.check_code_session_password()
returns trigger
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_user uuid := nullif(current_setting('private.password_changed_for', true), '')::uuid;
  v_session uuid;
begin
  if v_user is null then
    return null;
  end if;
  perform set_config('private.password_changed_for', '', true);
  for v_session in select s.id from auth.sessions s where s.user_id = v_user loop
    if exists (select 1 from auth.mfa_amr_claims c
               where c.session_id = v_session and c.authentication_method = 'otp'
                 and c.created_at < now() - interval '10 minutes') then
      raise exception 'The code this session began with is more than 10 minutes old: give current_password, or ask for a new password-reset code'
        using errcode = 'PT400', hint = 'current_password_required';
    end if;
    perform private.end_code_exemption(v_session);
  end loop;
  return null;
end;
$$;
revoke execute on function private.check_code_session_password() from public;
comment on function private.check_code_session_password() is
  'Trigger on auth.sessions: a code session sets a password within 10 minutes of its code, and once.';

create trigger check_code_session_password
after delete on auth.sessions
for each statement execute function private.check_code_session_password();
