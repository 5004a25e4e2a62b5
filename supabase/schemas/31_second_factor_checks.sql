-- What Supabase Auth asks the database before it accepts an authenticator code (docs/ACCOUNTS-SECURITY.md,
-- "Second factors"). Auth calls private.mfa_verification_attempt, its MFA verification attempt hook
-- (supabase/config.toml), on every TOTP verification, whichever door it came through: the facade's
-- /user/mfa/{id}/verify, supabase-js auth.mfa, or Auth's /factors/{id}/verify itself. The hook
--   - refuses the first code of a new factor unless the account's owner proved it is them for that factor (their
--     password, or a code e-mailed to the account: private.prove_factor_owner), so a stolen access token cannot
--     add an authenticator;
--   - counts wrong codes per factor (RFC 6238 section 5.2 asks for such a limit) so that no one else's wrong codes
--     stop the owner: 5 in 15 minutes from one client address lock that address out of the factor for the rest of
--     the 15 minutes; 10 in 15 minutes from addresses where the factor's code was never accepted lock every such
--     address, while an address where it was accepted in the last 90 days (the owner's own) is held by its own
--     count alone. A brute force thus gets 10 guesses per 15 minutes from new addresses, however many it has;
--   - accepts a factor's code once: Auth accepts the codes of the current time step and of one step either side and
--     does not tell the hook which code was sent, so after an accepted code the factor accepts none until its
--     third time step (up to 90 seconds), when no code that might have been used is valid any more.
-- A refusal answers Auth's hook error (HTTP status, and the stable code before the message), never Auth's
-- "reject" decision, which would sign the owner out of every session.

create table private.factor_code_checks (
  factor_id uuid primary key references auth.mfa_factors (id) on delete cascade,
  failures integer not null default 0 check (failures >= 0),
  failures_since timestamptz not null default now(),
  last_accepted_step bigint
);
alter table private.factor_code_checks enable row level security;
revoke all on private.factor_code_checks from anon, authenticated;
comment on table private.factor_code_checks is 'Per second factor: wrong codes from addresses it was never used from in the current 15-minute window, and the time step of the last accepted code.';
comment on column private.factor_code_checks.factor_id is 'The factor (auth.mfa_factors).';
comment on column private.factor_code_checks.failures is 'Wrong codes since failures_since from addresses where no code of the factor was accepted.';
comment on column private.factor_code_checks.failures_since is 'When the current 15-minute window of wrong codes began.';
comment on column private.factor_code_checks.last_accepted_step is 'The 30-second time step (Unix time / 30) in which a code was last accepted.';

create table private.factor_address_checks (
  factor_id uuid not null references auth.mfa_factors (id) on delete cascade,
  address text not null,
  failures integer not null default 0 check (failures >= 0),
  failures_since timestamptz not null default now(),
  accepted_at timestamptz,
  primary key (factor_id, address)
);
alter table private.factor_address_checks enable row level security;
revoke all on private.factor_address_checks from anon, authenticated;
comment on table private.factor_address_checks is 'Per second factor and client address: wrong codes in the current 15-minute window, and when a code from there was last accepted.';
comment on column private.factor_address_checks.factor_id is 'The factor (auth.mfa_factors).';
comment on column private.factor_address_checks.address is 'The client address as private.mail_address_key names it (an IPv6 address by its /64).';
comment on column private.factor_address_checks.failures is 'Wrong codes from this address since failures_since.';
comment on column private.factor_address_checks.failures_since is 'When this address''s current 15-minute window began.';
comment on column private.factor_address_checks.accepted_at is 'When a code of the factor was last accepted from this address: for 90 days, the factor-wide lock spares it.';

create table private.factor_owner_proofs (
  factor_id uuid primary key references auth.mfa_factors (id) on delete cascade,
  proved_at timestamptz not null default now(),
  proof text not null check (proof in ('password', 'email_code'))
);
alter table private.factor_owner_proofs enable row level security;
revoke all on private.factor_owner_proofs from anon, authenticated;
comment on table private.factor_owner_proofs is 'New factors whose owner proved it is them (password or e-mailed code): only these may be verified.';
comment on column private.factor_owner_proofs.factor_id is 'The new, unverified factor.';
comment on column private.factor_owner_proofs.proved_at is 'When the owner proved it; the proof holds for an hour.';
comment on column private.factor_owner_proofs.proof is 'How: the current password, or the code of a reauthentication e-mail.';

create table private.owner_proof_failures (
  session_id uuid primary key references auth.sessions (id) on delete cascade,
  failures integer not null default 0 check (failures >= 0),
  failures_since timestamptz not null default now()
);
alter table private.owner_proof_failures enable row level security;
revoke all on private.owner_proof_failures from anon, authenticated;
comment on table private.owner_proof_failures is 'Per session: wrong passwords or codes given to private.prove_factor_owner in the current 15-minute window (a stolen token''s guesses lock only its own session).';
comment on column private.owner_proof_failures.session_id is 'The session (auth.sessions) that gave them.';
comment on column private.owner_proof_failures.failures is 'Wrong proofs since failures_since.';
comment on column private.owner_proof_failures.failures_since is 'When the current 15-minute window began.';

-- An answer that PostgREST sends with the given HTTP status while the transaction still commits (a raised error
-- would roll back the failure just counted): the body is shaped as PostgREST shapes a raised error, so
-- supabase-js reads it as one (error.code PT<status>, error.hint the stable code).
create function private.committed_refusal(p_status integer, p_code text, p_message text)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
begin
  perform set_config('response.status', p_status::text, true);
  return jsonb_build_object('code', 'PT' || p_status, 'message', p_message, 'hint', p_code, 'details', null);
end;
$$;
revoke execute on function private.committed_refusal(integer, text, text) from public;
comment on function private.committed_refusal(integer, text, text) is
  'A refusal answered without rolling back: sets PostgREST''s response.status and returns an error-shaped body.';

-- The caller proves, for one of their new (unverified) factors, that they are the account's owner: with their
-- current password, or with the code of a reauthentication e-mail (GET /auth/v1/reauthenticate, supabase-js
-- auth.reauthenticate(), which also serves accounts without a password). 5 wrong proofs from a session lock that
-- session's proofs for the rest of their 15 minutes, checked before any hashing: the thief of a token guesses
-- 5 times in 15 minutes, and the owner's other sessions are not held up. A used e-mailed code is voided.
create function private.prove_factor_owner(p_factor_id uuid, p_password text, p_code text)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_me uuid := private.require_uid();
  v_session uuid := (nullif(auth.jwt() ->> 'session_id', ''))::uuid;
  v_user auth.users;
  v_failures private.owner_proof_failures;
  v_proof text := case when p_password is not null then 'password' else 'email_code' end;
  v_proved boolean;
begin
  if (p_password is null) = (p_code is null) then
    perform private.fail(400, 'validation_failed', 'Give either your current password or the code of a reauthentication e-mail');
  end if;
  if not exists (select 1 from auth.mfa_factors f where f.id = p_factor_id and f.user_id = v_me and f.status = 'unverified') then
    perform private.fail(404, 'factor_not_found', 'No such new factor of yours: enroll one first');
  end if;
  insert into private.owner_proof_failures (session_id) values (v_session) on conflict (session_id) do nothing;
  select * into v_failures from private.owner_proof_failures f where f.session_id = v_session for update;
  if v_failures.failures_since < now() - interval '15 minutes' then
    update private.owner_proof_failures f set failures = 0, failures_since = now() where f.session_id = v_session
    returning * into v_failures;
  end if;
  if v_failures.failures >= 5 then
    return private.committed_refusal(429, 'too_many_attempts', format(
      'Too many wrong passwords or codes from this session: try again in %s seconds, or from another session',
      greatest(1, ceil(extract(epoch from v_failures.failures_since + interval '15 minutes' - now()))::integer)));
  end if;

  select * into v_user from auth.users u where u.id = v_me;
  if p_password is not null then
    v_proved := coalesce(v_user.encrypted_password, '') <> ''
      and extensions.crypt(p_password, v_user.encrypted_password) = v_user.encrypted_password;
  else
    v_proved := coalesce(v_user.reauthentication_token, '') <> ''
      and v_user.reauthentication_sent_at > now() - interval '1 hour'
      and v_user.reauthentication_token = encode(extensions.digest(v_user.email || p_code, 'sha224'), 'hex');
  end if;

  if not v_proved then
    update private.owner_proof_failures f set failures = f.failures + 1 where f.session_id = v_session;
    if v_proof = 'password' then
      return private.committed_refusal(401, 'wrong_password', 'The password is wrong');
    end if;
    return private.committed_refusal(400, 'invalid_code', 'The code is wrong or has expired');
  end if;
  if v_proof = 'email_code' then
    update auth.users u set reauthentication_token = '' where u.id = v_me;
  end if;
  update private.owner_proof_failures f set failures = 0, failures_since = now() where f.session_id = v_session;
  insert into private.factor_owner_proofs (factor_id, proof) values (p_factor_id, v_proof)
  on conflict (factor_id) do update set proved_at = now(), proof = excluded.proof;
  return jsonb_build_object('proved', true, 'factor_id', p_factor_id);
end;
$$;
revoke execute on function private.prove_factor_owner(uuid, text, text) from public;
grant execute on function private.prove_factor_owner(uuid, text, text) to authenticated, service_role;
comment on function private.prove_factor_owner(uuid, text, text) is
  'The caller proves with their password or an e-mailed reauthentication code that a new factor of theirs is theirs to add.';

create function public.prove_factor_owner(p_factor_id uuid, p_password text default null, p_code text default null)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
begin
  return private.prove_factor_owner(p_factor_id, p_password, p_code);
end;
$$;
revoke execute on function public.prove_factor_owner(uuid, text, text) from public;
grant execute on function public.prove_factor_owner(uuid, text, text) to authenticated, service_role;
comment on function public.prove_factor_owner(uuid, text, text) is
  'Before a new authenticator''s first code is accepted: prove it is you, with p_password (your current password) or p_code (the code of auth.reauthenticate()). 401 wrong_password, 400 invalid_code, 429 too_many_attempts after 5 wrong ones from the session in 15 minutes.';

-- The refusal of a locked factor: the seconds to wait lead the message, so the facade's Retry-After is the real wait.
create function private.too_many_code_attempts(p_until timestamptz, p_whence text)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select private.hook_refusal(429, 'too_many_code_attempts', format(
    'Too many wrong codes for this authenticator %s: try again in %s seconds (after %s UTC)', p_whence,
    greatest(1, ceil(extract(epoch from p_until - now()))::integer),
    to_char(p_until at time zone 'UTC', 'HH24:MI:SS')));
$$;
revoke execute on function private.too_many_code_attempts(timestamptz, text) from public;
comment on function private.too_many_code_attempts(timestamptz, text) is
  'The hook''s 429 for a locked factor, naming the seconds until it opens again.';

-- Auth's MFA verification attempt hook: p_event holds factor_id, user_id, factor_type and whether the code
-- was valid. Answers {"decision": "continue"} (Auth then accepts a valid code and refuses a wrong one) or a
-- refusal. The counting commits: Auth runs the hook in a transaction of its own.
create function private.mfa_verification_attempt(p_event jsonb)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_factor uuid := (p_event ->> 'factor_id')::uuid;
  v_valid boolean := coalesce((p_event ->> 'valid')::boolean, false);
  v_address text := private.mail_address_key(p_event -> 'metadata' ->> 'ip_address');
  v_step bigint := floor(extract(epoch from now()) / 30)::bigint;
  v_check private.factor_code_checks;
  v_here private.factor_address_checks;
  v_known boolean;
begin
  if exists (select 1 from auth.mfa_factors f where f.id = v_factor and f.status = 'unverified')
    and not exists (select 1 from private.factor_owner_proofs p where p.factor_id = v_factor and p.proved_at > now() - interval '1 hour')
  then
    return private.hook_refusal(403, 'owner_proof_required',
      'Prove it is you before adding an authenticator: your current password or an e-mailed code (rpc prove_factor_owner)');
  end if;

  -- The factor's row first, then the address's: concurrent codes for one factor are counted one after another.
  insert into private.factor_code_checks (factor_id) values (v_factor) on conflict (factor_id) do nothing;
  select * into v_check from private.factor_code_checks c where c.factor_id = v_factor for update;
  if v_check.failures_since < now() - interval '15 minutes' then
    update private.factor_code_checks c set failures = 0, failures_since = now() where c.factor_id = v_factor
    returning * into v_check;
  end if;
  insert into private.factor_address_checks (factor_id, address) values (v_factor, v_address)
  on conflict (factor_id, address) do nothing;
  select * into v_here from private.factor_address_checks a where a.factor_id = v_factor and a.address = v_address for update;
  if v_here.failures_since < now() - interval '15 minutes' then
    update private.factor_address_checks a set failures = 0, failures_since = now()
    where a.factor_id = v_factor and a.address = v_address
    returning * into v_here;
  end if;
  v_known := coalesce(v_here.accepted_at > now() - interval '90 days', false);

  if v_here.failures >= 5 then
    return private.too_many_code_attempts(v_here.failures_since + interval '15 minutes', 'from this address');
  end if;
  if not v_known and v_check.failures >= 10 then
    return private.too_many_code_attempts(v_check.failures_since + interval '15 minutes', 'from new addresses');
  end if;
  if not v_valid then
    update private.factor_address_checks a set failures = a.failures + 1 where a.factor_id = v_factor and a.address = v_address;
    if not v_known then
      update private.factor_code_checks c set failures = c.failures + 1 where c.factor_id = v_factor;
    end if;
    return jsonb_build_object('decision', 'continue');
  end if;
  if v_check.last_accepted_step >= v_step - 2 then
    return private.hook_refusal(409, 'code_already_used',
      'This authenticator''s code was just used: wait for its next code (at most 90 seconds)');
  end if;
  update private.factor_code_checks c set last_accepted_step = v_step where c.factor_id = v_factor;
  update private.factor_address_checks a set failures = 0, failures_since = now(), accepted_at = now()
  where a.factor_id = v_factor and a.address = v_address;
  return jsonb_build_object('decision', 'continue');
end;
$$;
revoke execute on function private.mfa_verification_attempt(jsonb) from public;
grant execute on function private.mfa_verification_attempt(jsonb) to supabase_auth_admin;
comment on function private.mfa_verification_attempt(jsonb) is
  'Supabase Auth''s MFA verification attempt hook: a new factor needs its owner''s proof; wrong codes lock the address that sent them (5 in 15 minutes) and, past 10, every address the factor was never used from; a code is accepted once.';

-- Auth refuses a new factor once an account has `max_enrolled_factors` (10, config.toml) of any status, and keeps
-- an unverified one for 5 minutes: a stolen token enrolling junk could keep the owner from adding theirs. After
-- each new factor, the oldest unverified factors nobody proved theirs go until the account has 9, so there is
-- always room for the next; verified factors, and new ones their owner proved, stay.
create function private.make_room_for_factors()
returns trigger
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  delete from auth.mfa_factors f
  where f.id in (
    select u.id from auth.mfa_factors u
    where u.user_id = new.user_id and u.status = 'unverified' and u.id <> new.id
      and not exists (select 1 from private.factor_owner_proofs p where p.factor_id = u.id)
    order by u.created_at
    limit greatest(0, (select count(*) from auth.mfa_factors a where a.user_id = new.user_id) - 9));
  return null;
end;
$$;
revoke execute on function private.make_room_for_factors() from public;
comment on function private.make_room_for_factors() is
  'Trigger on auth.mfa_factors: unproven unverified factors make room, so junk cannot keep the owner from enrolling.';

create trigger make_room_for_factors
after insert on auth.mfa_factors
for each row execute function private.make_room_for_factors();
