-- Schemas and default privileges. `public` is what PostgREST exposes; `private` holds what clients must never
-- call directly (security definer helpers, trigger functions, admin membership, reference tables).

create schema if not exists private;
revoke all on schema private from public;
grant usage on schema private to anon, authenticated, service_role;

comment on schema private is 'Helpers and tables that the Data API does not expose.';

-- Nothing this schema creates is usable by a role until a statement here grants it, whatever the project's
-- defaults (older hosted projects grant every new table and function in public to anon and authenticated,
-- which would override the column grants that keep counters and authors read-only). Default privileges apply
-- to objects of the role that creates them, postgres. EXECUTE for PUBLIC is revoked globally, so in every
-- schema: a per-schema revoke cannot undo Postgres's built-in global grant.
alter default privileges for role postgres revoke execute on functions from public;
alter default privileges for role postgres in schema public revoke all on tables from anon, authenticated, service_role;
alter default privileges for role postgres in schema public revoke all on sequences from anon, authenticated, service_role;
alter default privileges for role postgres in schema public revoke all on functions from anon, authenticated, service_role;

-- Trigram matching for searching accounts by name (22_api_search.sql), in schema extensions as Supabase puts
-- extensions.
create extension if not exists pg_trgm with schema extensions;
-- RUM, an inverted index like GIN that also keeps each entry's created_at, so it answers "the newest posts
-- holding these words" without reading every match (04_posts.sql, 22_api_search.sql). Hosted Supabase has it.
create extension if not exists rum with schema extensions;
-- GIN on a uuid and a tsvector together: the posts of given authors holding given words (04_posts.sql).
create extension if not exists btree_gin with schema extensions;

-- Row-level security makes the planner's cost estimates of API queries large (each policy's lookups counted on
-- every row a branch might read), which sets off JIT compilation: seconds spent compiling a query that runs in
-- milliseconds (measured: a followers page 2.6 s of JIT for 10 ms of work). The API roles do without it;
-- PostgREST, and the facade like it, apply a role's settings to each request. (Written by hand into its
-- migration: `supabase db diff` does not compare role settings.)
alter role anon set jit = off;
alter role authenticated set jit = off;
