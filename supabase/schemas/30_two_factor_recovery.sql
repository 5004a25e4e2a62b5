-- Losing the authenticator (docs/PRODUCT.md, "Two-factor"): a recovery proved by a code e-mailed to the
-- account, then a wait of 72 hours, then the factors go. During the wait every session of the owner is told
-- (GET /user/mfa and each new session's answer show when the factors will go), and the owner, from a session
-- that proved the second factor, can cancel it. The wait keeps a stolen password with a stolen mailbox from
-- turning the factor off at once.

create table private.factor_recoveries (
  user_id uuid primary key references auth.users (id) on delete cascade,
  requested_at timestamptz not null default now(),
  completes_at timestamptz not null,
  check (completes_at > requested_at)
);
alter table private.factor_recoveries enable row level security;
revoke all on private.factor_recoveries from anon, authenticated;
comment on table private.factor_recoveries is 'Pending removals of an account''s second factors, asked for with an e-mailed code: they go at completes_at unless cancelled.';
comment on column private.factor_recoveries.user_id is 'The account.';
comment on column private.factor_recoveries.requested_at is 'When the e-mailed code was confirmed.';
comment on column private.factor_recoveries.completes_at is 'When the factors may be removed (72 hours later).';

-- An account's pending recovery as the API shows it: when it was asked for, when the factors go; null when none.
create function private.recovery_of(p_user uuid)
returns jsonb
language sql
stable
security definer
set search_path = ''
as $$
  select jsonb_build_object('requested_at', r.requested_at, 'completes_at', r.completes_at)
  from private.factor_recoveries r where r.user_id = p_user
$$;
revoke execute on function private.recovery_of(uuid) from public;
comment on function private.recovery_of(uuid) is 'An account''s pending recovery of its second factors, as JSON; null when none.';

-- Starts a recovery for p_user, once the facade has verified the code e-mailed to the account: so only the
-- facade's server role may call it (a client calling it directly would skip the e-mail). Asking again keeps
-- the first wait.
create function private.start_factor_recovery(p_user uuid)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  if not exists (select 1 from auth.mfa_factors f where f.user_id = p_user and f.status = 'verified') then
    perform private.fail(409, 'no_second_factor', 'This account has no second factor to recover');
  end if;
  insert into private.factor_recoveries (user_id, completes_at) values (p_user, now() + interval '72 hours')
  on conflict (user_id) do nothing;
  return private.recovery_of(p_user);
end;
$$;
revoke execute on function private.start_factor_recovery(uuid) from public;
grant execute on function private.start_factor_recovery(uuid) to service_role;
comment on function private.start_factor_recovery(uuid) is
  'Starts the 72-hour recovery of an account''s second factors (the facade calls it once the e-mailed code is verified).';

-- The caller's pending recovery: when it was asked for and when the factors go; null when none. This helper and
-- the two below are security definer, so in private (private.factor_recoveries and auth.mfa_factors are for
-- the server alone), and act on the caller's own account only; the API function after each is its invoker door.
create function private.own_factor_recovery()
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

create function public.factor_recovery()
returns jsonb
language sql
stable
security invoker
set search_path = ''
as $$
  select private.own_factor_recovery()
$$;
revoke execute on function public.factor_recovery() from public;
grant execute on function public.factor_recovery() to authenticated, service_role;
comment on function public.factor_recovery() is 'The caller''s pending recovery of their second factors (when asked, when they go), or null.';

-- Cancels the caller's pending recovery: only from a session that proved the second factor (whoever still
-- has the authenticator is its owner).
create function private.cancel_own_factor_recovery()
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

create function public.cancel_factor_recovery()
returns jsonb
language sql
volatile
security invoker
set search_path = ''
as $$
  select private.cancel_own_factor_recovery()
$$;
revoke execute on function public.cancel_factor_recovery() from public;
grant execute on function public.cancel_factor_recovery() to authenticated, service_role;
comment on function public.cancel_factor_recovery() is 'Cancels the caller''s pending recovery of their second factors (needs an aal2 session).';

-- Completes p_user's recovery once its wait is over: the factors go, and the account signs in with its password
-- alone. Before that, 409 with the time it completes. Called as the account (public.complete_factor_recovery),
-- or by the facade for a password reset proved with the e-mailed code (POST /auth/reset_password).
create function private.complete_factor_recovery_of(p_user uuid)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_recovery private.factor_recoveries;
  v_removed integer;
begin
  select * into v_recovery from private.factor_recoveries r where r.user_id = p_user for update;
  if not found then
    perform private.fail(404, 'recovery_not_found', 'There is no pending recovery of your second factor');
  end if;
  if v_recovery.completes_at > now() then
    perform private.fail(409, 'recovery_pending', format('Your second factor can be removed from %s UTC, 72 hours after you asked',
      to_char(v_recovery.completes_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI')));
  end if;
  delete from auth.mfa_factors f where f.user_id = p_user;
  get diagnostics v_removed = row_count;
  delete from private.factor_recoveries r where r.user_id = p_user;
  return jsonb_build_object('removed', v_removed);
end;
$$;
revoke execute on function private.complete_factor_recovery_of(uuid) from public;
grant execute on function private.complete_factor_recovery_of(uuid) to service_role;
comment on function private.complete_factor_recovery_of(uuid) is
  'Once the 72-hour wait is over, removes p_user''s second factors; 409 recovery_pending before (for the facade''s password reset).';

-- The caller's own recovery, completed once its wait is over.
create function private.complete_own_factor_recovery()
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

create function public.complete_factor_recovery()
returns jsonb
language sql
volatile
security invoker
set search_path = ''
as $$
  select private.complete_own_factor_recovery()
$$;
revoke execute on function public.complete_factor_recovery() from public;
grant execute on function public.complete_factor_recovery() to authenticated, service_role;
comment on function public.complete_factor_recovery() is
  'Once the 72-hour wait is over, removes the caller''s second factors; 409 recovery_pending before.';

-- A password reset of an account that lost its authenticator (POST /auth/reset_password, lost_authenticator): the
-- e-mailed reset code proved the mailbox. A recovery whose wait is over completes (`{"removed": n}`: the reset
-- then sets the password); otherwise one starts, or the pending one goes on (`{"recovery": …}`).
create function private.recover_lost_factors(p_user uuid)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  if exists (select 1 from private.factor_recoveries r where r.user_id = p_user and r.completes_at <= now()) then
    return private.complete_factor_recovery_of(p_user);
  end if;
  return jsonb_build_object('recovery', private.start_factor_recovery(p_user));
end;
$$;
revoke execute on function private.recover_lost_factors(uuid) from public;
grant execute on function private.recover_lost_factors(uuid) to service_role;
comment on function private.recover_lost_factors(uuid) is
  'For a password reset without the authenticator: completes p_user''s recovery whose wait is over, else starts it or keeps the pending one.';
