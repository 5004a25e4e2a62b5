-- Studio's impersonation meets the second-factor gate as the user's own session would: an account with a verified
-- factor impersonated at aal1 (Studio's default) reads as an aal1 session does; at aal2, as a session that proved it.
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
    when v_session_uid is not null and coalesce(auth.jwt() ->> 'aal', '') <> 'aal2'
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
