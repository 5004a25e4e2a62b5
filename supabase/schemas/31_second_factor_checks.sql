-- What Supabase Auth asks the database before it accepts an authenticator code (docs/ACCOUNTS-SECURITY.md,
-- "Second factors"). Auth calls private.mfa_verification_attempt, its MFA verification attempt hook
-- (supabase/config.toml), on every TOTP verification, whichever door it came through: the facade's
-- /user/mfa/{id}/verify, supabase-js auth.mfa, or Auth's /factors/{id}/verify itself. The hook
--   - refuses the first code of a new factor unless the account's owner proved it is them for that factor (their
--     password, or a code e-mailed to the account: private.prove_factor_owner), so a stolen access token cannot
--     add an authenticator;
--   - counts wrong codes per factor, whatever the client's address: 5 in 15 minutes lock the factor until the
--     15 minutes are over (RFC 6238 section 5.2 asks for such a limit);
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
comment on table private.factor_code_checks is 'Per second factor: wrong codes in the current 15-minute window, and the time step of the last accepted code.';
comment on column private.factor_code_checks.factor_id is 'The factor (auth.mfa_factors).';
comment on column private.factor_code_checks.failures is 'Wrong codes since failures_since.';
comment on column private.factor_code_checks.failures_since is 'When the current 15-minute window of wrong codes began.';
comment on column private.factor_code_checks.last_accepted_step is 'The 30-second time step (Unix time / 30) in which a code was last accepted.';

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
  user_id uuid primary key references auth.users (id) on delete cascade,
  failures integer not null default 0 check (failures >= 0),
  failures_since timestamptz not null default now()
);
alter table private.owner_proof_failures enable row level security;
revoke all on private.owner_proof_failures from anon, authenticated;
comment on table private.owner_proof_failures is 'Per account: wrong passwords or codes given to private.prove_factor_owner in the current 15-minute window.';
comment on column private.owner_proof_failures.user_id is 'The account.';
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
-- auth.reauthenticate(), which also serves accounts without a password). 5 wrong proofs an account lock it for
-- the rest of their 15 minutes, checked before any hashing. A used e-mailed code is voided.
create function private.prove_factor_owner(p_factor_id uuid, p_password text, p_code text)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_me uuid := private.require_uid();
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
  insert into private.owner_proof_failures (user_id) values (v_me) on conflict (user_id) do nothing;
  select * into v_failures from private.owner_proof_failures f where f.user_id = v_me for update;
  if v_failures.failures_since < now() - interval '15 minutes' then
    update private.owner_proof_failures f set failures = 0, failures_since = now() where f.user_id = v_me
    returning * into v_failures;
  end if;
  if v_failures.failures >= 5 then
    return private.committed_refusal(429, 'too_many_attempts', format(
      'Too many wrong passwords or codes: try again after %s UTC',
      to_char((v_failures.failures_since + interval '15 minutes') at time zone 'UTC', 'HH24:MI')));
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
    update private.owner_proof_failures f set failures = f.failures + 1 where f.user_id = v_me;
    return private.committed_refusal(401, 'wrong_password',
      case v_proof when 'password' then 'The password is wrong' else 'The code is wrong or has expired' end);
  end if;
  if v_proof = 'email_code' then
    update auth.users u set reauthentication_token = '' where u.id = v_me;
  end if;
  update private.owner_proof_failures f set failures = 0, failures_since = now() where f.user_id = v_me;
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
  'Before a new authenticator''s first code is accepted: prove it is you, with p_password (your current password) or p_code (the code of auth.reauthenticate()). 401 wrong_password, 429 too_many_attempts after 5 wrong ones in 15 minutes.';

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
  v_step bigint := floor(extract(epoch from now()) / 30)::bigint;
  v_check private.factor_code_checks;
begin
  if exists (select 1 from auth.mfa_factors f where f.id = v_factor and f.status = 'unverified')
    and not exists (select 1 from private.factor_owner_proofs p where p.factor_id = v_factor and p.proved_at > now() - interval '1 hour')
  then
    return private.hook_refusal(403, 'owner_proof_required',
      'Prove it is you before adding an authenticator: your current password or an e-mailed code (rpc prove_factor_owner)');
  end if;

  insert into private.factor_code_checks (factor_id) values (v_factor) on conflict (factor_id) do nothing;
  select * into v_check from private.factor_code_checks c where c.factor_id = v_factor for update;
  if v_check.failures_since < now() - interval '15 minutes' then
    update private.factor_code_checks c set failures = 0, failures_since = now() where c.factor_id = v_factor
    returning * into v_check;
  end if;
  if v_check.failures >= 5 then
    return private.hook_refusal(429, 'too_many_code_attempts', format(
      'Too many wrong codes for this authenticator: try again after %s UTC',
      to_char((v_check.failures_since + interval '15 minutes') at time zone 'UTC', 'HH24:MI')));
  end if;
  if not v_valid then
    update private.factor_code_checks c set failures = c.failures + 1 where c.factor_id = v_factor;
    return jsonb_build_object('decision', 'continue');
  end if;
  if v_check.last_accepted_step >= v_step - 2 then
    return private.hook_refusal(409, 'code_already_used',
      'This authenticator''s code was just used: wait for its next code (at most 90 seconds)');
  end if;
  update private.factor_code_checks c set failures = 0, failures_since = now(), last_accepted_step = v_step
  where c.factor_id = v_factor;
  return jsonb_build_object('decision', 'continue');
end;
$$;
revoke execute on function private.mfa_verification_attempt(jsonb) from public;
grant execute on function private.mfa_verification_attempt(jsonb) to supabase_auth_admin;
comment on function private.mfa_verification_attempt(jsonb) is
  'Supabase Auth''s MFA verification attempt hook: a new factor needs its owner''s proof; 5 wrong codes in 15 minutes lock a factor; a code is accepted once.';
