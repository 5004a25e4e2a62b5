-- What hosted Supabase provides and a bare Postgres lacks: the API roles, the Auth admin role, the auth and
-- extensions schemas, and the grants between them. Idempotent: run on every start by the local stack, as a
-- superuser, with psql variables `authenticator_password` and `auth_admin_password`.
-- Mirrors, in our own words, what the init scripts of Supabase's Postgres image create. It is the local stack's
-- (bootstrapDatabase in postgres.ts applies it, to its own cluster or to SUPABASE_DB_URL's database), never a
-- hosted project's: those already have these roles and schemas, so it stays out of the Supabase CLI's folders
-- (schemas/, migrations/, seed.sql). Any superuser psql can also run it to make a plain Postgres ready for
-- Supabase Auth's migrations and then the app's.

\set ON_ERROR_STOP on

-- API roles. As on hosted projects since 2023 they INHERIT; anon and authenticated never bypass RLS.
select format('create role %I nologin inherit', r)
from unnest(array['anon', 'authenticated']) as r
where not exists (select 1 from pg_roles where rolname = r)
\gexec

select 'create role service_role nologin inherit bypassrls'
where not exists (select 1 from pg_roles where rolname = 'service_role')
\gexec

-- The login role PostgREST (and our facade) connects as. NOINHERIT: it has no rights until it switches role,
-- so a forgotten role switch fails closed.
select 'create role authenticator login noinherit'
where not exists (select 1 from pg_roles where rolname = 'authenticator')
\gexec
alter role authenticator with login noinherit password :'authenticator_password';
grant anon, authenticated, service_role to authenticator;

-- Supabase Auth migrates and serves as this role; its models use unqualified table names, hence search_path.
select 'create role supabase_auth_admin login noinherit nocreaterole noreplication'
where not exists (select 1 from pg_roles where rolname = 'supabase_auth_admin')
\gexec
alter role supabase_auth_admin with login noinherit password :'auth_admin_password';
alter role supabase_auth_admin set search_path = auth;
alter role supabase_auth_admin set idle_in_transaction_session_timeout = 60000;

-- Studio and a few tools expect an admin role besides postgres.
select 'create role supabase_admin login superuser createdb createrole replication bypassrls'
where not exists (select 1 from pg_roles where rolname = 'supabase_admin')
\gexec

-- Statement and lock timeouts as on hosted projects (PostgREST re-applies role settings per request).
alter role anon set statement_timeout = '3s';
alter role authenticated set statement_timeout = '8s';
alter role authenticator set statement_timeout = '8s';
alter role authenticator set lock_timeout = '8s';

-- The auth schema belongs to Supabase Auth; the API roles only need to resolve auth.uid() and friends.
create schema if not exists auth authorization supabase_auth_admin;
-- The current database (the project's, or a scratch one built to compare schemas).
do $$ begin
  execute format('grant create, connect on database %I to supabase_auth_admin', current_database());
end $$;
grant usage on schema auth to anon, authenticated, service_role, postgres;

-- Extensions live in their own schema, never in public.
create schema if not exists extensions;
grant usage on schema extensions to anon, authenticated, service_role;
create extension if not exists pgcrypto with schema extensions;
create extension if not exists "uuid-ossp" with schema extensions;
alter role postgres set search_path = "$user", public, extensions;

-- public is usable by the API roles, but nothing in it is exposed by default: like new hosted projects,
-- every migration grants explicitly what each role may touch.
grant usage on schema public to anon, authenticated, service_role;
alter default privileges for role postgres in schema public revoke all on tables from anon, authenticated, service_role;
alter default privileges for role postgres in schema public revoke all on sequences from anon, authenticated, service_role;
alter default privileges for role postgres in schema public revoke all on functions from anon, authenticated, service_role;

-- The schemas PostgREST exposes; `supabase db advisors` reads this to know which tables are public.
do $$ begin
  execute format('alter database %I set "pgrst.db_schemas" = ''public''', current_database());
end $$;

-- PostgREST reloads its schema cache on NOTIFY pgrst: after any DDL (a migration, an edit in Studio) or drop, as
-- hosted projects do with the same two event triggers, so /rest/v1 never serves a stale schema.
create or replace function extensions.pgrst_ddl_watch()
returns event_trigger
language plpgsql
as $$
begin
  notify pgrst, 'reload schema';
end;
$$;
do $$ begin
  if not exists (select 1 from pg_event_trigger where evtname = 'pgrst_ddl_watch') then
    create event trigger pgrst_ddl_watch on ddl_command_end execute function extensions.pgrst_ddl_watch();
  end if;
  if not exists (select 1 from pg_event_trigger where evtname = 'pgrst_drop_watch') then
    create event trigger pgrst_drop_watch on sql_drop execute function extensions.pgrst_ddl_watch();
  end if;
end $$;
