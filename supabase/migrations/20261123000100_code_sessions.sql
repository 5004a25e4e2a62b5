-- Sessions begun with an e-mailed code, the codes themselves, and the e-mails that carry them: the rules
-- that hold against a stolen token and an attacker with many addresses (README "Security"). They live on
-- Supabase Auth's own tables, so they hold for the facade and for clients calling Auth directly.

-- 1. Only a password-reset session may change the password without the current one.
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

create trigger limit_code_sessions
before insert on auth.mfa_amr_claims
for each row execute function private.limit_code_sessions();

-- Existing code sessions cannot be told apart any more: none keeps the exemption.
delete from auth.mfa_amr_claims c
where c.authentication_method = 'otp'
  and exists (select 1 from auth.mfa_amr_claims d where d.session_id = c.session_id and d.authentication_method = 'email/signup');
update auth.mfa_amr_claims set authentication_method = 'email/signup' where authentication_method = 'otp';

-- 2. A few wrong codes void the account's codes, whatever addresses the guesses come from.
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

create trigger reset_code_attempts
after update of confirmation_sent_at, recovery_sent_at, email_change_sent_at on auth.users
for each row
when (old.confirmation_sent_at is distinct from new.confirmation_sent_at
      or old.recovery_sent_at is distinct from new.recovery_sent_at
      or old.email_change_sent_at is distinct from new.email_change_sent_at)
execute function private.reset_code_attempts();

-- 4. At most one code e-mail of a kind per account a minute, however many requests arrive at once.
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
