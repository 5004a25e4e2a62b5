-- Written by hand from supabase/schemas/27_sessions.sql (issue 53): Studio's SQL editor now calls PostgREST's
-- pre-request hook while impersonating a user, with a made-up session_id; the hook lets such claims through when
-- the connection is not PostgREST's (private.impersonated_in_studio()), and a token with an ended session, which
-- only ever comes through PostgREST as `authenticator`, stays refused.

create or replace function private.check_request()
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
comment on function private.check_request() is
  'PostgREST''s pre-request hook (Studio''s impersonation calls it too): 401 for a signed-in token whose session has ended, or for anon calling a function or using a table only users may; counts a request that may write for read-your-writes.';
