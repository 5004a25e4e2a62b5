-- Who is calling, and whether they are an admin; plus the small helpers every API function uses
-- (errors, pagination cursors and limits).

-- Studio's SQL editor, asked to "impersonate" a user, sets the role and that user's claims with a made-up
-- session_id, and marks the request with this path (apps/studio/lib/role-impersonation.ts in supabase/supabase).
-- Such claims come from an operator already logged in to the database, who could set any claims, not from a
-- token: no session is there to check. A token only ever reaches SQL through PostgREST, which logs in as
-- `authenticator`, or the facade, which never sets request.path; neither can make both hold.
create function private.impersonated_in_studio()
returns boolean
language sql
stable
set search_path = ''
as $$
  select session_user <> 'authenticator'
    and current_setting('request.path', true) = '/impersonation-example-request-path';
$$;
revoke execute on function private.impersonated_in_studio() from public;
comment on function private.impersonated_in_studio() is
  'Whether these claims were set by an operator impersonating a user in Studio''s SQL editor (no session to check).';

-- The caller, as long as the token's session still exists and the account is not banned, and, once the account
-- has a verified second factor, the session proved it (aal2). A signed-out or banned user's token thus stops
-- working at once for PostgREST, the facade and RLS alike, not at the token's expiry; and the password alone
-- (an aal1 session of an account with a factor) reads and does only what anybody may, through every door, as
-- Supabase's MFA guide has restrictive policies do (docs/PRODUCT.md, "Two-factor"). What such a session may still do
-- (step up, list its factors and sessions, sign out, start a factor recovery) asks private.session_uid(). PL/pgSQL rather than SQL, here and in the other helpers that policies call once per
-- statement: PL/pgSQL keeps its query plans for the session, while a SQL function that cannot be inlined
-- (security definer, or with its own search_path) plans its query again on every call.
create function private.uid()
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
revoke execute on function private.uid() from public;
grant execute on function private.uid() to anon, authenticated, service_role;
comment on function private.uid() is 'The calling user while their session is alive, they are not banned, and it proved their second factor if they have one; else null.';

-- The caller whose session is alive, whether or not it proved their second factor: for the few acts an aal1
-- session of an account with a factor may do (step up, list factors and sessions, sign out, recover the factor).
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

-- Admin membership is granted only here (SQL editor, Studio, or `npm run grant-admin`), never by a user.
create table private.admins (
  user_id uuid primary key references auth.users (id) on delete cascade,
  granted_at timestamptz not null default now(),
  note text not null default '' check (char_length(note) <= 200)
);
alter table private.admins enable row level security;

comment on table private.admins is 'Users with admin rights. Effective and revocable at once.';

-- Acts that could lock a person out of their account, and an admin's powers, need proof of the second factor
-- once the account has one: a session whose token says aal2 (Supabase Auth's MFA verify step; docs/PRODUCT.md,
-- "Two-factor"). Security definer: auth.mfa_factors is Auth's, not the caller's to read.
create function private.second_factor_proved()
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

create function private.require_aal2()
returns void
language plpgsql
stable
set search_path = ''
as $$
begin
  if not private.second_factor_proved() then
    perform private.fail(403, 'second_factor_required',
      'Verify your second factor first: this needs a session stepped up with your authenticator app (aal2)');
  end if;
end;
$$;
revoke execute on function private.require_aal2() from public;
grant execute on function private.require_aal2() to authenticated, service_role;
comment on function private.require_aal2() is 'Raises 403 second_factor_required when the caller has a verified second factor and the session has not proved it.';

-- An admin's powers (every policy and function that asks this) need the second factor proved, once the admin
-- has one: an aal1 session of such an admin reads and acts as the user they also are.
create function private.is_admin()
returns boolean
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  return exists (select 1 from private.admins a where a.user_id = private.uid()) and private.second_factor_proved();
end;
$$;
revoke execute on function private.is_admin() from public;
grant execute on function private.is_admin() to anon, authenticated, service_role;
comment on function private.is_admin() is 'Whether the caller (private.uid()) is an admin, with their second factor proved if they have one.';

-- Raises one of the errors of supabase/ERRORS.md: SQLSTATE PT<status>, the stable code in HINT.
create function private.fail(p_status integer, p_code text, p_message text)
returns void
language plpgsql
immutable
set search_path = ''
as $$
begin
  raise exception using errcode = 'PT' || p_status::text, message = p_message, hint = p_code;
end;
$$;
revoke execute on function private.fail(integer, text, text) from public;
grant execute on function private.fail(integer, text, text) to anon, authenticated, service_role;
comment on function private.fail(integer, text, text) is 'Raises an API error: SQLSTATE PT<p_status>, p_message, and p_code as the hint.';

-- The same error from a limit (a 429), with the limit's quota {limit, remaining, reset (seconds)}, so every door
-- answers it with Retry-After and the IETF draft's RateLimit-Limit, -Remaining and -Reset. Raised as PostgREST 12
-- takes a whole answer from an error: SQLSTATE PGRST, MESSAGE the body as JSON (the shape of every other error:
-- code PT<status>, message, details the quota as JSON text, hint the stable code), DETAIL the status and headers
-- as JSON. The facade reads the body from MESSAGE and sends the same headers (functions/api/lib/errors.ts).
-- PostgREST 12's own Access-Control-Expose-Headers (Location, Content-Range…) lacks these, so the answer adds a
-- second one naming them: a browser joins the two, and a page on another origin may read when to come back, on a
-- hosted project too (its gateway leaves that header alone).
create function private.fail(p_status integer, p_code text, p_message text, p_quota jsonb)
returns void
language plpgsql
immutable
set search_path = ''
as $$
begin
  raise sqlstate 'PGRST' using
    message = jsonb_build_object('code', 'PT' || p_status::text, 'message', p_message, 'details', p_quota::text, 'hint', p_code)::text,
    detail = jsonb_build_object('status', p_status, 'headers', jsonb_build_object(
      'Retry-After', p_quota ->> 'reset',
      'RateLimit-Limit', p_quota ->> 'limit',
      'RateLimit-Remaining', p_quota ->> 'remaining',
      'RateLimit-Reset', p_quota ->> 'reset',
      'Access-Control-Expose-Headers', 'Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset'))::text;
end;
$$;
revoke execute on function private.fail(integer, text, text, jsonb) from public;
comment on function private.fail(integer, text, text, jsonb) is
  'Raises a limit''s API error with its quota: PostgREST and the facade answer it with Retry-After and RateLimit-* headers.';

-- The caller, or 401 when there is none (no token, signed out, banned), or 403 when the session has not proved
-- the account's second factor.
create function private.require_uid()
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

-- The caller at any assurance level, or 401: for what an aal1 session of an account with a factor may do.
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

-- Security definer: it asks private.admins, which no caller reads, whether the caller is an admin at all, so
-- that an admin who has not proved the second factor is told so rather than taken for a non-admin.
create function private.require_admin()
returns uuid
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_uid uuid := private.require_uid();
begin
  if not exists (select 1 from private.admins a where a.user_id = v_uid) then
    -- Admin paths exist for everyone to see, so this 403 leaks nothing.
    perform private.fail(403, 'admin_only', 'Only admins may do this');
  end if;
  perform private.require_aal2();
  return v_uid;
end;
$$;
revoke execute on function private.require_admin() from public;
grant execute on function private.require_admin() to authenticated, service_role;
comment on function private.require_admin() is 'The caller''s id; raises 401 without a caller, 403 unless they are an admin, and 403 second_factor_required for an admin with a second factor this session has not proved.';

-- Keyset pagination: an opaque cursor naming the last row of a page by its sort key and id. Lists in time
-- order ask for the rows below it, `(time, id) < (at, id)`, a condition their index serves (also in a
-- generic plan); search pages do the same with (rank, id). The cursor is "<key>/<id>" in URL-safe base64.
create function private.cursor_text(p_key text, p_id uuid)
returns text
language sql
immutable
set search_path = ''
as $$
  select translate(encode(convert_to(p_key || '/' || p_id::text, 'UTF8'), 'base64'), E'+/=\n', '-_')
$$;
revoke execute on function private.cursor_text(text, uuid) from public;
grant execute on function private.cursor_text(text, uuid) to anon, authenticated, service_role;
comment on function private.cursor_text(text, uuid) is 'The opaque page cursor naming the row with sort key p_key (as text) and id p_id.';

-- The id is the text's last 36 characters, so a key may hold any character (cursors made before the
-- separator was '/' used '.', and still read).
create function private.cursor_parts(p_cursor text, out key text, out id uuid)
language plpgsql
immutable
set search_path = ''
as $$
declare
  v_padded text := translate(p_cursor, '-_', '+/');
  v_text text;
begin
  v_padded := v_padded || repeat('=', (4 - length(v_padded) % 4) % 4);
  v_text := convert_from(decode(v_padded, 'base64'), 'UTF8');
  key := left(v_text, -37);
  id := right(v_text, 36)::uuid;
exception when others then
  perform private.fail(400, 'invalid_cursor', 'The cursor is not one this API returned');
end;
$$;
revoke execute on function private.cursor_parts(text) from public;
grant execute on function private.cursor_parts(text) to anon, authenticated, service_role;
comment on function private.cursor_parts(text) is 'The sort key (as text) and id a cursor names; 400 for one this API did not make.';

create function private.encode_cursor(p_at timestamptz, p_id uuid)
returns text
language sql
immutable
set search_path = ''
as $$
  select private.cursor_text(((extract(epoch from p_at) * 1000000)::bigint)::text, p_id)
$$;
revoke execute on function private.encode_cursor(timestamptz, uuid) from public;
grant execute on function private.encode_cursor(timestamptz, uuid) to anon, authenticated, service_role;
comment on function private.encode_cursor(timestamptz, uuid) is 'The opaque page cursor naming the row (p_at, p_id).';

create function private.decode_cursor(p_cursor text, out at timestamptz, out id uuid)
language plpgsql
immutable
set search_path = ''
as $$
declare
  v_parts record;
begin
  if p_cursor is null then
    -- Before the first row of any newest-first list: every (time, id) compares below it.
    at := 'infinity';
    id := 'ffffffff-ffff-ffff-ffff-ffffffffffff';
    return;
  end if;
  v_parts := private.cursor_parts(p_cursor);
  id := v_parts.id;
  begin
    at := timestamptz 'epoch' + v_parts.key::bigint * interval '1 microsecond';
  exception when others then
    perform private.fail(400, 'invalid_cursor', 'The cursor is not one this API returned');
  end;
end;
$$;
revoke execute on function private.decode_cursor(text) from public;
grant execute on function private.decode_cursor(text) to anon, authenticated, service_role;
comment on function private.decode_cursor(text) is
  'The (at, id) a cursor names; (infinity, the greatest uuid) for a null cursor; 400 for one this API did not make.';

-- The lower bound of a newer-than read (docs/PRODUCT.md, "Lists"): the rows above the cursor of the newest row a
-- client holds, `(time, id) > (at, id)`; without one, below every row.
create function private.decode_newer_than(p_cursor text, out at timestamptz, out id uuid)
language plpgsql
immutable
set search_path = ''
as $$
declare
  v_point record;
begin
  if p_cursor is null then
    at := '-infinity';
    id := '00000000-0000-0000-0000-000000000000';
    return;
  end if;
  v_point := private.decode_cursor(p_cursor);
  at := v_point.at;
  id := v_point.id;
end;
$$;
revoke execute on function private.decode_newer_than(text) from public;
grant execute on function private.decode_newer_than(text) to anon, authenticated, service_role;
comment on function private.decode_newer_than(text) is
  'The (time, id) a newer-than read starts above; below every row when p_cursor is null; 400 for a cursor this API did not make.';

-- A search page's cursor names its last row by (rank, id); ranks are real numbers, written exactly as text.
create function private.encode_rank_cursor(p_rank real, p_id uuid)
returns text
language sql
immutable
set search_path = ''
as $$
  select private.cursor_text(p_rank::text, p_id)
$$;
revoke execute on function private.encode_rank_cursor(real, uuid) from public;
grant execute on function private.encode_rank_cursor(real, uuid) to anon, authenticated, service_role;
comment on function private.encode_rank_cursor(real, uuid) is 'The opaque cursor of a search page naming the row (p_rank, p_id).';

create function private.decode_rank_cursor(p_cursor text, out rank real, out id uuid)
language plpgsql
immutable
set search_path = ''
as $$
declare
  v_parts record;
begin
  if p_cursor is null then
    -- Before the first row: every (rank, id) compares below it.
    rank := 'Infinity';
    id := 'ffffffff-ffff-ffff-ffff-ffffffffffff';
    return;
  end if;
  v_parts := private.cursor_parts(p_cursor);
  id := v_parts.id;
  begin
    rank := v_parts.key::real;
  exception when others then
    perform private.fail(400, 'invalid_cursor', 'The cursor is not one this API returned');
  end;
end;
$$;
revoke execute on function private.decode_rank_cursor(text) from public;
grant execute on function private.decode_rank_cursor(text) to anon, authenticated, service_role;
comment on function private.decode_rank_cursor(text) is
  'The (rank, id) a search cursor names; (infinity, the greatest uuid) for a null cursor; 400 for one this API did not make.';

create function private.page_limit(p_limit integer)
returns integer
language plpgsql
immutable
set search_path = ''
as $$
begin
  if p_limit is null then
    return 20;
  end if;
  if p_limit < 1 or p_limit > 100 then
    perform private.fail(400, 'invalid_limit', 'limit must be between 1 and 100');
  end if;
  return p_limit;
end;
$$;
revoke execute on function private.page_limit(integer) from public;
grant execute on function private.page_limit(integer) to anon, authenticated, service_role;
comment on function private.page_limit(integer) is 'A page size: 20 when null; 400 outside 1..100.';
