-- Schemas: `public` is what PostgREST exposes; `private` holds what clients must never call directly
-- (security definer helpers, trigger functions, admin membership).

create schema if not exists private;
revoke all on schema private from public;
grant usage on schema private to anon, authenticated, service_role;

comment on schema private is 'Helpers and tables that the Data API does not expose.';

-- Functions are not executable by everyone unless a migration says so.
alter default privileges in schema public revoke execute on functions from public;
alter default privileges in schema private revoke execute on functions from public;
