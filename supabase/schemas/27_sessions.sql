-- Sessions and devices (docs/PRODUCT.md, "Sessions"): the caller's sessions as Supabase Auth records them
-- (auth.sessions: one per sign-in, its refresh tokens hang off it), and ending one of them or all but the
-- current one. An ended session's access token is refused at once: private.uid() asks auth.sessions on every
-- request (the facade's session check, and PostgREST's pre-request hook below); its refresh token is deleted
-- with it (on delete cascade), so Auth refuses it too. Nobody sees or ends another account's sessions.

-- PostgREST runs this before every request (in-database configuration, as on a hosted project): a signed-in
-- token whose session has ended (signed out, ended from another device, the account deleted) is refused with
-- 401 unauthorized, as the facade refuses it, rather than taken for no token at all. A ban ends the account's
-- sessions too, but a banned account's token still reads what anybody may (private.uid() is null for it, and
-- RLS does the rest: docs/PRODUCT.md, "Sessions"). Security definer: auth.sessions and auth.users are Auth's;
-- one lookup by primary key, a second only for a token whose session is gone.
-- A request that may write (PostgREST runs every other one read-only: a GET, a call of a stable function) counts
-- one more write of the caller, as each of the facade's does (private.note_write, 23_replica_reads.sql), so the
-- facade's reads on a replica see what the caller wrote through supabase-js too.
-- A caller without a user (no token, the anon key) calling a function only users may call (`rpc('me')`), or
-- reading or writing a table anon is granted nothing of for that (`from('notifications')`, any insert), is
-- refused here with 401 unauthorized and its stable code in `hint`, as the facade refuses it, rather than by
-- Postgres's 42501 "permission denied" without one. anon keeps no privilege it did not have: this only says no
-- sooner, and in the project's words.
-- Studio's SQL editor, impersonating a user, calls this hook too (after setting the role and the claims, as
-- PostgREST does), with a made-up session_id: private.impersonated_in_studio() (01_identity.sql) tells it from a
-- request of PostgREST, which always connects as `authenticator`, so the impersonated user meets every other check
-- here and reads as private.uid() says (a banned one as nobody), while a token with an ended session stays refused.
create function private.check_request()
returns void
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_path text := current_setting('request.path', true);
  v_function name := substring(v_path from '^/rpc/([^/]+)$');
  v_table regclass := to_regclass('public.' || quote_ident(substring(v_path from '^/([^/]+)$')));
  v_privilege text := case current_setting('request.method', true)
    when 'GET' then 'select' when 'HEAD' then 'select' when 'POST' then 'insert' when 'PUT' then 'insert'
    when 'PATCH' then 'update' when 'DELETE' then 'delete' end;
begin
  if (auth.jwt() ->> 'role') = 'authenticated'
     and not private.impersonated_in_studio()
     and not exists (select 1 from auth.sessions s where s.id = (nullif(auth.jwt() ->> 'session_id', ''))::uuid)
     and not exists (select 1 from auth.users u where u.id = auth.uid() and u.banned_until > now()) then
    perform private.fail(401, 'unauthorized', 'Your session has ended: sign in again');
  end if;
  if coalesce(auth.jwt() ->> 'role', 'anon') = 'anon'
     and (v_function is not null
       and exists (select 1 from pg_catalog.pg_proc p where p.pronamespace = 'public'::regnamespace and p.proname = v_function)
       and not exists (select 1 from pg_catalog.pg_proc p
         where p.pronamespace = 'public'::regnamespace and p.proname = v_function and has_function_privilege('anon', p.oid, 'execute'))
     or v_table is not null and v_privilege is not null and not case v_privilege
       when 'delete' then has_table_privilege('anon', v_table, 'delete') else has_any_column_privilege('anon', v_table, v_privilege) end) then
    perform private.fail(401, 'unauthorized', 'Sign in first');
  end if;
  if current_setting('transaction_read_only') = 'off' then
    perform private.note_write();
  end if;
end;
$$;
revoke execute on function private.check_request() from public;
grant execute on function private.check_request() to anon, authenticated, service_role;
comment on function private.check_request() is
  'PostgREST''s pre-request hook (Studio''s impersonation calls it too): 401 for a signed-in token whose session has ended, or for anon calling a function or using a table only users may; counts a request that may write for read-your-writes.';

alter role authenticator set pgrst.db_pre_request = 'private.check_request';
notify pgrst, 'reload config';

-- The caller's sessions, the most recently used first (at most 100: each sign-in makes one, and Auth's
-- sign-in limits keep them few). `current` marks the one the request's token belongs to. The three helpers
-- below are security definer, so in private (auth.sessions is Auth's, and no grant lets a client touch it), and
-- act on the caller's own sessions only; the API functions after each are their invoker doors.
create function private.own_sessions()
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

create function public.my_sessions()
returns jsonb
language sql
stable
security invoker
set search_path = ''
as $$
  select private.own_sessions()
$$;
revoke execute on function public.my_sessions() from public;
grant execute on function public.my_sessions() to authenticated, service_role;
comment on function public.my_sessions() is
  'The caller''s sessions (devices), most recently used first: when made and last used, user agent, address, assurance level, and which is the current one.';

-- Ends one of the caller's sessions (the current one too: that is signing out). Another account's session,
-- or one that does not exist, is the same 404. Any session of the account may end the others, aal1 included,
-- as Auth's own logout (scope global or others) lets it: ending sessions locks nobody out, and it is how an
-- owner who fears a thief cuts them off (docs/PRODUCT.md, "Sessions").
create function private.end_own_session(p_session_id uuid)
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

create function public.end_session(p_session_id uuid)
returns jsonb
language sql
volatile
security invoker
set search_path = ''
as $$
  select private.end_own_session(p_session_id)
$$;
revoke execute on function public.end_session(uuid) from public;
grant execute on function public.end_session(uuid) to authenticated, service_role;
comment on function public.end_session(uuid) is 'Ends one of the caller''s sessions: its tokens are refused from the next request on.';

-- Ends every session of the caller but the current one ("sign out everywhere else").
create function private.end_own_other_sessions()
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

create function public.end_other_sessions()
returns jsonb
language sql
volatile
security invoker
set search_path = ''
as $$
  select private.end_own_other_sessions()
$$;
revoke execute on function public.end_other_sessions() from public;
grant execute on function public.end_other_sessions() to authenticated, service_role;
comment on function public.end_other_sessions() is 'Ends every session of the caller but the current one; answers how many ended.';

-- The caller's id and e-mail at any assurance level: the facade e-mails the code that starts a lost second
-- factor's recovery to an aal1 session, whose profile stays hidden until it steps up (private.uid()).
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
