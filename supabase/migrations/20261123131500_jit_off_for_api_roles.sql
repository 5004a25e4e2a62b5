-- Written by hand (`supabase db diff` does not compare role settings): the API roles run without JIT
-- compilation, which row-level security's large cost estimates set off for queries that run in milliseconds
-- (supabase/schemas/00_schemas_and_privileges.sql says more). PostgREST and the facade apply it per request.
alter role anon set jit = off;
alter role authenticated set jit = off;
