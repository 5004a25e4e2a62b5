-- Written by hand from supabase/schemas/01_identity.sql, 23, 27 and 30: once an account has a verified second
-- factor, a session that has not proved it (aal1) is nobody to the database but for stepping up, its factors,
-- its sessions and a factor recovery (issue 51).

create or replace function private.uid()
returns uuid
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  -- Everything auth.uid() and auth.jwt() read: the answer holds while these do.
  v_claims text := concat_ws(e'\n', current_setting('request.jwt.claims', true), current_setting('request.jwt.claim', true),
    current_setting('request.jwt.claim.sub', true));
  v_session_uid uuid;
  v_uid uuid;
begin
  -- Checked once per transaction and claims: every policy and view asks (15 times for a page of posts), and
  -- each check parses the token's claims, which cost more than the page itself. Transaction-local, so each
  -- request (one transaction) checks the session afresh.
  if v_claims = current_setting('daykeeper.uid_of', true) then
    return nullif(current_setting('daykeeper.uid', true), '')::uuid;
  end if;
  v_session_uid := (
    select u.id
    from auth.users u
    where u.id = auth.uid()
      and (u.banned_until is null or u.banned_until <= now())
      and u.deleted_at is null
      and (
        exists (
          select from auth.sessions s
          where s.id = (nullif(auth.jwt() ->> 'session_id', ''))::uuid
            and s.user_id = u.id
            and (s.not_after is null or s.not_after > now())
        )
        or private.impersonated_in_studio()
      )
  );
  v_uid := case
    when v_session_uid is not null and coalesce(auth.jwt() ->> 'aal', '') <> 'aal2' and not private.impersonated_in_studio()
      and exists (select from auth.mfa_factors f where f.user_id = v_session_uid and f.status = 'verified')
    then null
    else v_session_uid
  end;
  perform set_config('daykeeper.uid', coalesce(v_uid::text, ''), true),
    set_config('daykeeper.session_uid', coalesce(v_session_uid::text, ''), true),
    set_config('daykeeper.uid_of', v_claims, true);
  return v_uid;
end;
$$;
revoke execute on function private.uid() from public;
grant execute on function private.uid() to anon, authenticated, service_role;
comment on function private.uid() is 'The calling user while their session is alive, they are not banned, and it proved their second factor if they have one; else null.';

create function private.session_uid()
returns uuid
language plpgsql
stable
set search_path = ''
as $$
begin
  perform private.uid(); -- fills the transaction's answers
  return nullif(current_setting('daykeeper.session_uid', true), '')::uuid;
end;
$$;
revoke execute on function private.session_uid() from public;
grant execute on function private.session_uid() to anon, authenticated, service_role;
comment on function private.session_uid() is 'The calling user while their session is alive and they are not banned, at any assurance level; else null.';

create or replace function private.second_factor_proved()
returns boolean
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  return (auth.jwt() ->> 'aal') = 'aal2'
    or not exists (select 1 from auth.mfa_factors f where f.user_id = private.session_uid() and f.status = 'verified');
end;
$$;
revoke execute on function private.second_factor_proved() from public;
grant execute on function private.second_factor_proved() to anon, authenticated, service_role;
comment on function private.second_factor_proved() is
  'Whether the caller''s session proved their second factor (aal2), or they have none.';

create or replace function private.require_uid()
returns uuid
language plpgsql
stable
set search_path = ''
as $$
declare
  v_uid uuid := private.uid();
begin
  if v_uid is null then
    if private.session_uid() is not null then
      perform private.fail(403, 'second_factor_required',
        'Verify your second factor first: this needs a session stepped up with your authenticator app (aal2)');
    end if;
    perform private.fail(401, 'unauthorized', 'Sign in first (or your session has ended)');
  end if;
  return v_uid;
end;
$$;
revoke execute on function private.require_uid() from public;
grant execute on function private.require_uid() to anon, authenticated, service_role;
comment on function private.require_uid() is 'The caller''s id; raises 401 when there is none, 403 when the session has not proved the account''s second factor.';

create function private.require_session_uid()
returns uuid
language plpgsql
stable
set search_path = ''
as $$
declare
  v_uid uuid := private.session_uid();
begin
  if v_uid is null then
    perform private.fail(401, 'unauthorized', 'Sign in first (or your session has ended)');
  end if;
  return v_uid;
end;
$$;
revoke execute on function private.require_session_uid() from public;
grant execute on function private.require_session_uid() to anon, authenticated, service_role;
comment on function private.require_session_uid() is 'The caller''s id at any assurance level; raises 401 when there is none.';

create or replace function private.replica_ready(p_writes bigint)
returns void
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  if not pg_is_in_recovery() or p_writes is null then
    return; -- the primary itself is never behind; an anonymous caller has nothing of their own to see
  end if;
  if private.session_uid() is null then
    raise exception 'this replica has not replayed the caller''s session yet' using errcode = 'DKLAG';
  end if;
  if private.read_mark() < p_writes then
    raise exception 'this replica has not replayed the caller''s writes yet' using errcode = 'DKLAG';
  end if;
end;
$$;
revoke execute on function private.replica_ready(bigint) from public;
grant execute on function private.replica_ready(bigint) to anon, authenticated, service_role;
comment on function private.replica_ready(bigint) is
  'On a replica, for a signed-in caller (p_writes: their count of writes on the primary): raises DKLAG unless it holds their session and as many of their writes.';

create or replace function private.own_sessions()
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_me uuid := private.require_session_uid();
  v_current uuid := (nullif(auth.jwt() ->> 'session_id', ''))::uuid;
begin
  return jsonb_build_object('items', coalesce((
    select jsonb_agg(jsonb_build_object(
        'id', s.id,
        'created_at', s.created_at,
        'last_used_at', coalesce(s.refreshed_at at time zone 'UTC', s.updated_at, s.created_at),
        'user_agent', s.user_agent,
        'ip', host(s.ip),
        'aal', s.aal,
        'current', s.id = v_current)
      order by coalesce(s.refreshed_at at time zone 'UTC', s.updated_at, s.created_at) desc, s.id)
    from (select * from auth.sessions x
          where x.user_id = v_me and (x.not_after is null or x.not_after > now())
          order by coalesce(x.refreshed_at at time zone 'UTC', x.updated_at, x.created_at) desc, x.id
          limit 100) s), '[]'::jsonb));
end;
$$;
revoke execute on function private.own_sessions() from public;
grant execute on function private.own_sessions() to authenticated, service_role;
comment on function private.own_sessions() is 'The caller''s sessions (public.my_sessions).';

create or replace function private.end_own_session(p_session_id uuid)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_me uuid := private.require_session_uid();
begin
  delete from auth.sessions s where s.id = p_session_id and s.user_id = v_me;
  if not found then
    perform private.fail(404, 'session_not_found', 'No such session of yours');
  end if;
  return jsonb_build_object('ended', 1);
end;
$$;
revoke execute on function private.end_own_session(uuid) from public;
grant execute on function private.end_own_session(uuid) to authenticated, service_role;
comment on function private.end_own_session(uuid) is 'Ends one of the caller''s sessions (public.end_session).';

create or replace function private.end_own_other_sessions()
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_me uuid := private.require_session_uid();
  v_ended integer;
begin
  delete from auth.sessions s
  where s.user_id = v_me and s.id is distinct from (nullif(auth.jwt() ->> 'session_id', ''))::uuid;
  get diagnostics v_ended = row_count;
  return jsonb_build_object('ended', v_ended);
end;
$$;
revoke execute on function private.end_own_other_sessions() from public;
grant execute on function private.end_own_other_sessions() to authenticated, service_role;
comment on function private.end_own_other_sessions() is 'Ends every session of the caller but the current one (public.end_other_sessions).';

create function private.own_account()
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_me uuid := private.require_session_uid();
begin
  return (select jsonb_build_object('id', u.id, 'email', u.email) from auth.users u where u.id = v_me);
end;
$$;
revoke execute on function private.own_account() from public;
grant execute on function private.own_account() to authenticated, service_role;
comment on function private.own_account() is 'The caller''s id and e-mail, at any assurance level (for the code of a factor recovery).';

create or replace function private.own_factor_recovery()
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  return private.recovery_of(private.require_session_uid());
end;
$$;
revoke execute on function private.own_factor_recovery() from public;
grant execute on function private.own_factor_recovery() to authenticated, service_role;
comment on function private.own_factor_recovery() is 'The caller''s pending recovery of their second factors (public.factor_recovery).';

create or replace function private.cancel_own_factor_recovery()
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_me uuid := private.require_session_uid();
begin
  perform private.require_aal2();
  delete from private.factor_recoveries r where r.user_id = v_me;
  if not found then
    perform private.fail(404, 'recovery_not_found', 'There is no pending recovery of your second factor');
  end if;
  return jsonb_build_object('cancelled', true);
end;
$$;
revoke execute on function private.cancel_own_factor_recovery() from public;
grant execute on function private.cancel_own_factor_recovery() to authenticated, service_role;
comment on function private.cancel_own_factor_recovery() is 'Cancels the caller''s pending recovery (public.cancel_factor_recovery).';

create or replace function private.complete_own_factor_recovery()
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  return private.complete_factor_recovery_of(private.require_session_uid());
end;
$$;
revoke execute on function private.complete_own_factor_recovery() from public;
grant execute on function private.complete_own_factor_recovery() to authenticated, service_role;
comment on function private.complete_own_factor_recovery() is 'Completes the caller''s recovery once its wait is over (public.complete_factor_recovery).';
