-- Nothing a migration creates is usable by a role until the migration grants it, whatever the project's
-- defaults (older hosted projects grant every new table and function in public to anon and authenticated,
-- which would override the column grants that keep counters and authors read-only). Default privileges
-- apply to objects of the role running the migrations. EXECUTE for PUBLIC is revoked globally: the
-- per-schema revokes of the schemas migration cannot undo the built-in global grant (each function so far
-- revokes it itself).
alter default privileges for role postgres revoke execute on functions from public;
alter default privileges for role postgres in schema public revoke all on tables from anon, authenticated, service_role;
alter default privileges for role postgres in schema public revoke all on sequences from anon, authenticated, service_role;
alter default privileges for role postgres in schema public revoke all on functions from anon, authenticated, service_role;
