-- A wrong e-mailed code proving a new factor's owner is 400 invalid_code, as every other wrong code (a wrong
-- password stays 401 wrong_password).
create or replace function private.prove_factor_owner(p_factor_id uuid, p_password text, p_code text)
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
comment on function private.prove_factor_owner(uuid, text, text) is
  'The caller proves with their password or an e-mailed reauthentication code that a new factor of theirs is theirs to add.';
comment on function public.prove_factor_owner(uuid, text, text) is
  'Before a new authenticator''s first code is accepted: prove it is you, with p_password (your current password) or p_code (the code of auth.reauthenticate()). 401 wrong_password, 400 invalid_code, 429 too_many_attempts after 5 wrong ones from the session in 15 minutes.';
