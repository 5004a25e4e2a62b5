-- Accounts, on Supabase Auth's own tables: the profile made at sign-up, banned e-mails refused, and the rules
-- of the e-mailed codes (the sessions they begin, the guesses they allow, the e-mails that carry them) that
-- hold against a stolen token and an attacker with many addresses (docs/ACCOUNTS-SECURITY.md, "Security"). The
-- triggers live on auth.users and auth.mfa_amr_claims, so they hold for the facade and for clients calling Auth
-- directly.

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

-- A refusal in the shape Auth's hooks answer: Auth sends the HTTP status and the message (stable code first).
create function private.hook_refusal(p_status integer, p_code text, p_message text)
returns jsonb
language sql
immutable
set search_path = ''
as $$
  select jsonb_build_object('error', jsonb_build_object('http_code', p_status, 'message', p_code || ': ' || p_message))
$$;
revoke execute on function private.hook_refusal(integer, text, text) from public;
comment on function private.hook_refusal(integer, text, text) is 'A refusal as an Auth hook answers it: HTTP status, and the message led by the stable code.';

-- Supabase Auth's before_user_created hook (`[auth.hook.before_user_created]` in config.toml): a sign-up made
-- through Auth itself (supabase-js `auth.signUp`, the facade, Google) is refused with the facade's precise
-- answer instead of Auth's 500 "Database error saving new user". Auth answers a hook refusal with the status
-- given here and its own code `unknown`, so the stable code begins the message: "username_reserved: The
-- username "feed" is reserved". Users made through Auth's admin API skip hooks: create_profile_for_new_user
-- stays the last guard.
create function private.before_user_created(p_event jsonb)
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_user jsonb := coalesce(p_event -> 'user', '{}'::jsonb);
  v_meta jsonb := coalesce(v_user -> 'user_metadata', '{}'::jsonb);
  v_state text;
  v_message text;
  v_code text;
begin
  perform private.refuse_banned_email(v_user ->> 'email');
  -- An account that chose no username (Google) is given a free one by the sign-up trigger.
  if coalesce(v_meta ->> 'username', '') <> '' then
    perform private.check_registration(v_meta ->> 'username', v_user ->> 'email',
      coalesce(nullif(v_meta ->> 'time_zone', ''), 'UTC'));
  end if;
  return '{}'::jsonb;
exception when others then
  get stacked diagnostics v_state = returned_sqlstate, v_message = message_text, v_code = pg_exception_hint;
  if v_state !~ '^PT4\d\d$' then
    raise;
  end if;
  return private.hook_refusal(substr(v_state, 3)::integer, v_code, v_message);
end;
$$;
revoke execute on function private.before_user_created(jsonb) from public;
-- Auth calls it by name as its own role: that role may resolve names in private and run this one function.
grant usage on schema private to supabase_auth_admin;
grant execute on function private.before_user_created(jsonb) to supabase_auth_admin;
comment on function private.before_user_created(jsonb) is
  'Supabase Auth hook: refuses a sign-up whose e-mail is banned or whose username is invalid, reserved or taken (4xx, "<code>: <message>").';

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

-- A banned account's e-mail stays refused once the account is deleted, however it is deleted: by an admin,
-- in Studio's Authentication page, or through Auth's admin API.
create function private.keep_banned_email()
returns trigger
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  insert into private.banned_emails (email)
  select lower(old.email)
  where old.email is not null
    and exists (select 1 from public.profiles p where p.id = old.id and p.banned_at is not null)
  on conflict do nothing;
  return old;
end;
$$;
revoke execute on function private.keep_banned_email() from public;
comment on function private.keep_banned_email() is 'Trigger on auth.users: a deleted banned account''s e-mail goes to private.banned_emails.';

create trigger keep_banned_email
before delete on auth.users
for each row execute function private.keep_banned_email();

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
  -- The profile is gone by the time Auth's row is deleted: a banned one's e-mail is kept here.
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

-- The relabelling runs when Auth's transaction commits (a deferred trigger on auth.sessions, one of the auth
-- tables hosted projects let a project add triggers to), after Auth has recorded the session's claims.
create function private.limit_code_sessions()
returns trigger
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  if new.user_id::text is distinct from current_setting('private.recovered_user', true) then
    update auth.mfa_amr_claims c set authentication_method = 'email/signup'
    where c.session_id = new.id and c.authentication_method = 'otp';
  end if;
  return null;
end;
$$;
revoke execute on function private.limit_code_sessions() from public;
comment on function private.limit_code_sessions() is
  'Trigger on auth.sessions: a code session that is not a password recovery is recorded as email/signup.';

create constraint trigger limit_code_sessions
after insert on auth.sessions
deferrable initially deferred
for each row execute function private.limit_code_sessions();

-- A few wrong codes void a code, however many addresses the guesses come from; one address alone cannot.
-- Auth limits guesses per client address only. The facade takes an attempt here before each verification it
-- asks Auth for, counted per account, kind of code and client address: past 5 from one address, that address
-- is refused; past 10 in all, the account's code of that kind is voided (its owner asks for a new one). A new
-- code of the kind starts its count again. (Counting per account alone would let anyone void anyone's codes
-- with six requests.)
create table private.code_attempts (
  user_id uuid not null references auth.users (id) on delete cascade,
  kind text not null check (kind in ('signup', 'recovery', 'email_change')),
  client text not null,
  attempts integer not null default 1 check (attempts > 0),
  primary key (user_id, kind, client)
);
alter table private.code_attempts enable row level security;
comment on table private.code_attempts is
  'Verifications of e-mailed codes asked through the facade, per account, kind and client address, since the last code of the kind.';

-- p_email is the address the code was sent to (for an e-mail change, the old or the new one); p_kind is
-- signup, recovery (also the deletion code, a magic-link code) or email_change.
create function private.take_code_attempt(p_email text, p_kind text, p_client text)
returns boolean
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_refused boolean;
  v_voided uuid[];
begin
  with targets as (
    select u.id from auth.users u
    where u.instance_id = '00000000-0000-0000-0000-000000000000' and lower(u.email) = lower(p_email)
    union
    select u.id from auth.users u where p_kind = 'email_change' and lower(u.email_change) = lower(p_email)
  ),
  counted as (
    insert into private.code_attempts as a (user_id, kind, client)
    select t.id, p_kind, coalesce(p_client, '') from targets t
    on conflict (user_id, kind, client) do update set attempts = a.attempts + 1
    returning a.user_id, a.attempts
  ),
  -- The statement's snapshot shows the counts before this attempt: the total is theirs plus one.
  totals as (
    select c.user_id, c.attempts,
      1 + (select coalesce(sum(o.attempts), 0) from private.code_attempts o
           where o.user_id = c.user_id and o.kind = p_kind) as total
    from counted c
  )
  select coalesce(bool_or(t.attempts > 5 or t.total > 10), false),
         coalesce(array_agg(t.user_id) filter (where t.total > 10), '{}')
  into v_refused, v_voided
  from totals t;

  if cardinality(v_voided) > 0 then
    update auth.users u set
      confirmation_token = case when p_kind = 'signup' then '' else u.confirmation_token end,
      recovery_token = case when p_kind = 'recovery' then '' else u.recovery_token end,
      email_change_token_current = case when p_kind = 'email_change' then '' else u.email_change_token_current end,
      email_change_token_new = case when p_kind = 'email_change' then '' else u.email_change_token_new end
    where u.id = any (v_voided);
    delete from auth.one_time_tokens t
    where t.user_id = any (v_voided)
      and t.token_type::text = any (case p_kind
        when 'signup' then array['confirmation_token']
        when 'recovery' then array['recovery_token']
        else array['email_change_token_current', 'email_change_token_new'] end);
  end if;
  return not v_refused;
end;
$$;
revoke execute on function private.take_code_attempt(text, text, text) from public;
grant execute on function private.take_code_attempt(text, text, text) to service_role;
comment on function private.take_code_attempt(text, text, text) is
  'Counts a verification of a p_kind code sent to p_email from p_client; false past 5 from that client or 10 in all (the code is then voided).';

create function private.reset_code_attempts()
returns trigger
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  delete from private.code_attempts a
  where a.user_id = new.id
    and (a.kind = 'signup' and old.confirmation_sent_at is distinct from new.confirmation_sent_at
      or a.kind = 'recovery' and old.recovery_sent_at is distinct from new.recovery_sent_at
      or a.kind = 'email_change' and old.email_change_sent_at is distinct from new.email_change_sent_at);
  return null;
end;
$$;
revoke execute on function private.reset_code_attempts() from public;
comment on function private.reset_code_attempts() is
  'Trigger on auth.users: a new code of a kind e-mailed to the account starts the count of that kind again.';

create trigger reset_code_attempts
after update of confirmation_sent_at, recovery_sent_at, email_change_sent_at on auth.users
for each row
when (old.confirmation_sent_at is distinct from new.confirmation_sent_at
      or old.recovery_sent_at is distinct from new.recovery_sent_at
      or old.email_change_sent_at is distinct from new.email_change_sent_at)
execute function private.reset_code_attempts();

-- Code e-mails: every one Supabase Auth sends goes through its Send Email hook (the facade's
-- /hooks/send_email), which takes a slot here before it sends, whatever door asked for the mail (Auth's own
-- /recover, /otp, /resend, /signup, an e-mail change, the facade). One function holds every rule, so
-- concurrent requests from any number of addresses meet the same rows:
-- - one e-mail of a kind per account a minute (Auth's max_frequency is read and written without a lock, so
--   concurrent requests all pass it);
-- - at most private.mail_limits' `address` e-mails an hour from one client address (an IPv6 address counts
--   with its /64, which one client usually holds whole);
-- - at most its `project` e-mails an hour in all: the mail server's budget, of which one address can spend
--   only its own share, and sign-ups and invitations (codes to accounts not yet confirmed, whoever asks) only
--   their `signups` slice, so a flood of sign-ups to fresh addresses never stops the codes of existing accounts
--   (resets, e-mail changes, second-factor recovery);
-- - one e-mail-change code a minute to a new address, whatever the number of accounts asking to move to it (the
--   other kinds go to the account's own address, which the minute per account already holds).
-- Auth's own project-wide `email_sent` limit counts before the hook is asked, refused requests included, so
-- one client could spend it for everyone: config.toml sets it out of reach, and the budget lives here.
-- The numbers live in private.mail_limits: an operator changes one with an UPDATE in Studio, no migration.

-- The hook's path is /hooks/send_email: `hooks` is a fixed first path segment, so nobody's username.
insert into private.reserved_usernames (name) values ('hooks') on conflict do nothing;

create table private.mail_limits (
  scope text primary key check (scope in ('address', 'project', 'signups')),
  max_mails integer not null check (max_mails > 0),
  why text not null default ''
);
alter table private.mail_limits enable row level security;
comment on table private.mail_limits is
  'How many code e-mails one client address, and the whole project, may have sent per hour. Edit to change a limit.';
comment on column private.mail_limits.scope is 'address (every request from one client address), project (all of them), or signups (the part of project that sign-up and invitation codes may take).';
comment on column private.mail_limits.max_mails is 'The most e-mails in one hour (an e-mail change to two addresses counts two).';
comment on column private.mail_limits.why is 'Why this number: for the next operator.';

insert into private.mail_limits (scope, max_mails, why) values
  ('address', 30, 'A household or an office signing up and resetting together; 3% of the project''s hour, so it takes 34 addresses to spend it.'),
  ('project', 1000, 'What the mail server may send an hour (Supabase''s custom SMTP default is 30; a provider''s quota is more): raise it with the sign-ups.'),
  ('signups', 600, 'The part of the project''s hour sign-up and invitation codes may take: a flood of sign-ups leaves 400 for the codes of existing accounts.');

-- The last e-mail of each kind to each account. No foreign key: a sign-up's hook runs while Auth's transaction
-- still holds the new, uncommitted user, which a foreign key check would wait for. Rows older than a minute
-- mean nothing and are cleared as new ones come.
create table private.code_mails (
  user_id uuid not null,
  kind text not null check (kind in ('signup', 'invite', 'magiclink', 'recovery', 'email_change', 'reauthentication', 'email_change_request')),
  sent_at timestamptz not null default now(),
  primary key (user_id, kind)
);
alter table private.code_mails enable row level security;
create index code_mails_sent_at_idx on private.code_mails (sent_at);
comment on table private.code_mails is 'When a code e-mail of each kind last went to each account (a minute''s worth).';

-- E-mails per client address and for the project, per clock hour.
create table private.mail_counts (
  key text not null,
  window_start timestamptz not null,
  mails integer not null check (mails >= 0),
  primary key (key, window_start)
);
alter table private.mail_counts enable row level security;
create index mail_counts_window_idx on private.mail_counts (window_start);
comment on table private.mail_counts is 'Code e-mails sent per hour, per client address and for the whole project.';
comment on column private.mail_counts.key is 'address:<IPv4 address or IPv6 /64>, address:unknown, project, or project:signups.';

-- The last e-mail-change code to each new address (lower case), whichever account asked: a minute's worth.
create table private.recipient_mails (
  recipient text primary key,
  sent_at timestamptz not null default now()
);
alter table private.recipient_mails enable row level security;
create index recipient_mails_sent_at_idx on private.recipient_mails (sent_at);
comment on table private.recipient_mails is 'When an e-mail-change code last went to each new address, whichever account asked (a minute''s worth).';

revoke all on private.mail_limits, private.code_mails, private.mail_counts, private.recipient_mails from anon, authenticated;

-- The key a client address counts under (Auth names it as text: anything but an address is `unknown`).
create function private.mail_address_key(p_address text)
returns text
language plpgsql
immutable
set search_path = ''
as $$
declare
  v_address inet;
begin
  v_address := nullif(p_address, '')::inet;
  return 'address:' || coalesce(case when family(v_address) = 6 then network(set_masklen(v_address, 64))::text else host(v_address) end, 'unknown');
exception when invalid_text_representation then
  return 'address:unknown';
end;
$$;
revoke execute on function private.mail_address_key(text) from public;

-- Adds p_mails to a key's count in the current hour; past p_max, raises PT429 with the message the client reads.
create function private.count_mails(p_key text, p_mails integer, p_max integer, p_refusal text)
returns void
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_mails integer;
begin
  insert into private.mail_counts as c (key, window_start, mails) values (p_key, date_trunc('hour', now()), p_mails)
  on conflict (key, window_start) do update set mails = c.mails + excluded.mails
  returning c.mails into v_mails;
  if v_mails > p_max then
    raise exception using errcode = 'PT429', message = p_refusal;
  end if;
end;
$$;
revoke execute on function private.count_mails(text, integer, integer, text) from public;

-- A slot for p_mails e-mails of p_kind (Auth's email_action_type) to account p_user_id, asked for by the
-- client at p_address (and for an e-mail change, to the new address p_new_email): null when taken (the e-mails may
-- go), else why not, as the client may read it (the hook answers it with 429). A refusal counts nothing. Each
-- account's slot is held by its row lock, the counts by theirs, so concurrent requests are counted one after another.
create function private.take_mail_slot(p_user_id uuid, p_kind text, p_address text, p_mails integer, p_new_email text default '')
returns text
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_limits jsonb;
begin
  select jsonb_object_agg(l.scope, l.max_mails) into v_limits from private.mail_limits l;
  begin
    insert into private.code_mails as m (user_id, kind) values (p_user_id, p_kind)
    on conflict (user_id, kind) do update set sent_at = now()
    where m.sent_at <= now() - interval '60 seconds';
    if not found then
      raise exception using errcode = 'PT429', message = 'An e-mail of this kind was sent less than a minute ago: use its code, or ask again in a minute';
    end if;
    if p_kind = 'email_change' and coalesce(p_new_email, '') <> '' then
      insert into private.recipient_mails as r (recipient) values (lower(p_new_email))
      on conflict (recipient) do update set sent_at = now()
      where r.sent_at <= now() - interval '60 seconds';
      if not found then
        raise exception using errcode = 'PT429', message = 'An e-mail of this kind was sent less than a minute ago: use its code, or ask again in a minute';
      end if;
    end if;
    if v_limits ? 'address' then
      perform private.count_mails(private.mail_address_key(p_address), p_mails, (v_limits ->> 'address')::integer,
        'Too many e-mails requested from your address this hour: try again later');
    end if;
    if p_kind in ('signup', 'invite') and v_limits ? 'signups' then
      perform private.count_mails('project:signups', p_mails, (v_limits ->> 'signups')::integer,
        'Too many sign-ups this hour: try again later');
    end if;
    if v_limits ? 'project' then
      perform private.count_mails('project', p_mails, (v_limits ->> 'project')::integer,
        'Too many e-mails requested this hour: try again later');
    end if;
  exception when sqlstate 'PT429' then
    return sqlerrm;
  end;
  delete from private.code_mails m
  where m.ctid = any (array(select o.ctid from private.code_mails o where o.sent_at < now() - interval '60 seconds' limit 500));
  delete from private.recipient_mails m
  where m.ctid = any (array(select o.ctid from private.recipient_mails o where o.sent_at < now() - interval '60 seconds' limit 500));
  delete from private.mail_counts c
  where c.ctid = any (array(select o.ctid from private.mail_counts o where o.window_start < date_trunc('hour', now()) limit 500));
  return null;
end;
$$;
revoke execute on function private.take_mail_slot(uuid, text, text, integer, text) from public;
grant execute on function private.take_mail_slot(uuid, text, text, integer, text) to service_role;
comment on function private.take_mail_slot(uuid, text, text, integer, text) is
  'Takes a slot for p_mails code e-mails of p_kind to an account, asked for from p_address: null, or why not (once a minute per account and kind and per new address, per-address, sign-up and project budgets per hour).';

-- Gives back a slot whose e-mails could not be sent (the mail server down): the account may ask again at once,
-- and nothing of the budgets is spent.
create function private.give_back_mail_slot(p_user_id uuid, p_kind text, p_address text, p_mails integer, p_new_email text default '')
returns void
language sql
volatile
security definer
set search_path = ''
as $$
  delete from private.code_mails m where m.user_id = p_user_id and m.kind = p_kind;
  delete from private.recipient_mails r where p_kind = 'email_change' and r.recipient = lower(p_new_email);
  update private.mail_counts c set mails = greatest(0, c.mails - p_mails)
  where c.window_start = date_trunc('hour', now())
    and (c.key in (private.mail_address_key(p_address), 'project')
         or (c.key = 'project:signups' and p_kind in ('signup', 'invite')));
$$;
revoke execute on function private.give_back_mail_slot(uuid, text, text, integer, text) from public;
grant execute on function private.give_back_mail_slot(uuid, text, text, integer, text) to service_role;
comment on function private.give_back_mail_slot(uuid, text, text, integer, text) is
  'Gives back a slot of private.take_mail_slot whose e-mails could not be sent.';

-- Auth signs each call of the Send Email hook (Standard Webhooks) with an id, and may call again with the same
-- one (after its 5 s timeout, say); a signature stays good for 5 minutes, so anyone who saw a signed request could
-- also send it again. The hook sends the e-mails of an id once: a delivery is taken here first, and given back
-- only when the mail server failed (so Auth's next call sends them). Ids older than 10 minutes are forgotten.
create table private.hook_deliveries (
  webhook_id text primary key,
  received_at timestamptz not null default now()
);
alter table private.hook_deliveries enable row level security;
revoke all on private.hook_deliveries from anon, authenticated;
comment on table private.hook_deliveries is 'The Send Email hook''s calls of the last 10 minutes, by Standard Webhooks id: each is sent once.';
comment on column private.hook_deliveries.webhook_id is 'The webhook-id header of Auth''s signed call.';
comment on column private.hook_deliveries.received_at is 'When the hook first took it.';

create function private.take_hook_delivery(p_webhook_id text)
returns boolean
language sql
volatile
security definer
set search_path = ''
as $$
  with forgotten as (
    delete from private.hook_deliveries d where d.received_at < now() - interval '10 minutes'
  )
  insert into private.hook_deliveries (webhook_id) values (p_webhook_id)
  on conflict (webhook_id) do nothing
  returning true;
$$;
revoke execute on function private.take_hook_delivery(text) from public;
grant execute on function private.take_hook_delivery(text) to service_role;
comment on function private.take_hook_delivery(text) is
  'True the first time the Send Email hook takes a call id (null after): its e-mails are sent once.';

create function private.give_back_hook_delivery(p_webhook_id text)
returns void
language sql
volatile
security definer
set search_path = ''
as $$
  delete from private.hook_deliveries d where d.webhook_id = p_webhook_id;
$$;
revoke execute on function private.give_back_hook_delivery(text) from public;
grant execute on function private.give_back_hook_delivery(text) to service_role;
comment on function private.give_back_hook_delivery(text) is
  'Forgets a call id whose e-mails could not be sent, so Auth''s next call with it sends them.';

-- A new e-mail asked for with PUT /user: once a minute per account, whatever the address. Auth e-mails the codes
-- to a free address and then holds the account to its max_frequency, but refuses a taken one before that: without
-- this, a second request within the minute would tell them apart (429 against 200). The facade takes the slot
-- before it asks Auth, in a transaction of its own, so it is spent whatever Auth answers.
create function private.take_email_change_slot()
returns void
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_me uuid := private.require_uid();
  v_taken boolean;
  v_reset integer;
begin
  insert into private.code_mails as m (user_id, kind) values (v_me, 'email_change_request')
  on conflict (user_id, kind) do update set sent_at = now()
  where m.sent_at <= now() - interval '60 seconds'
  returning true into v_taken;
  if v_taken is null then
    select greatest(1, ceil(extract(epoch from m.sent_at + interval '60 seconds' - now())))::integer into v_reset
    from private.code_mails m where m.user_id = v_me and m.kind = 'email_change_request';
    raise exception using errcode = 'PT429', hint = 'too_many_email_changes',
      detail = jsonb_build_object('limit', 1, 'remaining', 0, 'reset', v_reset)::text,
      message = format('You asked for a new e-mail address less than a minute ago; try again in %s seconds', v_reset);
  end if;
end;
$$;
revoke execute on function private.take_email_change_slot() from public;
grant execute on function private.take_email_change_slot() to authenticated;
comment on function private.take_email_change_slot() is
  'Takes the caller''s once-a-minute slot for asking a new e-mail address, or raises 429 too_many_email_changes.';
