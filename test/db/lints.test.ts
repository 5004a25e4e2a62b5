// The lints of Supabase's database advisors (splinter, github.com/supabase/splinter, as of April 2026), from the
// `info` level up, run against the migrated database. The queries are this suite's own, written from each lint's
// documented rule and narrowed to this project's schemas; a finding fails the test unless `accepted` gives the
// reason it stands. (The pinned CLI's `supabase db lint` is plpgsql_check's type check, not the advisors.)
import { readFileSync } from 'node:fs';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { asRoot } from '../helpers/db.ts';
import { authIsRunning } from '../helpers/stack.ts';

const config = parse(readFileSync('supabase/config.toml', 'utf8')) as {
  api: { schemas: string[] };
  auth: { enable_anonymous_sign_ins: boolean };
};
/** The schemas PostgREST exposes ($1 in the queries) and the project's own ($2). */
const exposed = config.api.schemas;
const appSchemas = ['public', 'private', 'moderation'];

/** Findings that stand, each with why (keys as the lint reports them: `<lint>: <object>`). */
const accepted: Record<string, string> = {};

// Not run here: 0005 unused_index and 0020 table_bloat read a production database's statistics (a test database's say
// nothing); 0011 function_search_path_mutable, since conventions.test.ts checks more (every search_path is empty).

/** A policy expression with each `(select f(…))` removed: what remains runs once per row. */
const perRow = `regexp_replace(coalesce(pg_get_expr(p.polqual, p.polrelid), '') || ' ' || coalesce(pg_get_expr(p.polwithcheck, p.polrelid), ''),
  '\\( SELECT [a-z_.]+\\([^()]*\\) AS [a-z_]+\\)', '', 'g')`;

/** The policies of the project's tables, a row per role (PUBLIC as anon and authenticated) and command. */
const policies = `
  select c.oid as rel, c.oid::regclass::text as tbl, p.polname, p.polpermissive, r.role, x.cmd, p.polqual, p.polwithcheck, p.polrelid
  from pg_policy p join pg_class c on c.oid = p.polrelid join pg_namespace n on n.oid = c.relnamespace
  cross join lateral (select coalesce(nullif(r, 0)::regrole::text, 'anon') as role from unnest(p.polroles) r
                      union select 'authenticated' where p.polroles @> array[0::oid]) r
  cross join lateral unnest(case p.polcmd when '*' then array['select', 'insert', 'update', 'delete']
    else array[case p.polcmd when 'r' then 'select' when 'a' then 'insert' when 'w' then 'update' else 'delete' end] end) x(cmd)
  where n.nspname = any($2::text[])`;

/** Each lint: its number and name, its level, and a query whose rows (`found`) are its findings. */
const lints: [string, 'INFO' | 'WARN' | 'ERROR', string][] = [
  ['0001 unindexed_foreign_keys', 'INFO', `
    select c.conrelid::regclass || ' ' || c.conname as found
    from pg_constraint c join pg_class t on t.oid = c.conrelid join pg_namespace n on n.oid = t.relnamespace
    where c.contype = 'f' and n.nspname = any($2::text[]) and not exists (
      select 1 from pg_index i where i.indrelid = c.conrelid and i.indisvalid
        and (i.indkey::int2[])[0:cardinality(c.conkey) - 1] @> c.conkey and c.conkey @> (i.indkey::int2[])[0:cardinality(c.conkey) - 1])`],
  ['0002 auth_users_exposed', 'ERROR', `
    select distinct v.oid::regclass::text as found
    from pg_depend d join pg_rewrite w on w.oid = d.objid join pg_class v on v.oid = w.ev_class
    join pg_namespace n on n.oid = v.relnamespace
    where d.refobjid = 'auth.users'::regclass and n.nspname = any($1::text[]) and v.oid <> 'auth.users'::regclass
      and (has_table_privilege('anon', v.oid, 'select') or has_table_privilege('authenticated', v.oid, 'select'))`],
  ['0003 auth_rls_initplan', 'WARN', `
    select distinct tbl || ': ' || polname as found from (${policies}) p
    where ${perRow} ~ '(auth|private)\\.(uid|jwt|role|email|is_admin)\\(|current_setting\\('`],
  ['0004 no_primary_key', 'INFO', `
    select c.oid::regclass::text as found from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p') and n.nspname = any($2::text[])
      and not exists (select 1 from pg_index i where i.indrelid = c.oid and i.indisprimary)`],
  ['0006 multiple_permissive_policies', 'WARN', `
    select tbl || ': ' || role || ' ' || cmd || ' (' || string_agg(polname, ', ' order by polname) || ')' as found
    from (${policies}) p where polpermissive group by tbl, role, cmd having count(*) > 1`],
  ['0007 policy_exists_rls_disabled', 'ERROR', `
    select distinct c.oid::regclass::text as found from pg_policy p join pg_class c on c.oid = p.polrelid
    join pg_namespace n on n.oid = c.relnamespace where n.nspname = any($2::text[]) and not c.relrowsecurity`],
  ['0008 rls_enabled_no_policy', 'INFO', `
    select c.oid::regclass::text as found from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p') and c.relrowsecurity and n.nspname = any($2::text[])
      and not exists (select 1 from pg_policy p where p.polrelid = c.oid)`],
  ['0009 duplicate_index', 'WARN', `
    select i.indrelid::regclass || ': ' || string_agg(i.indexrelid::regclass::text, ', ' order by i.indexrelid::regclass::text) as found
    from pg_index i join pg_class c on c.oid = i.indrelid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = any($2::text[])
    group by i.indrelid, i.indkey::text, i.indclass::text, i.indcollation::text, i.indisunique,
      coalesce(pg_get_expr(i.indexprs, i.indrelid), ''), coalesce(pg_get_expr(i.indpred, i.indrelid), '')
    having count(*) > 1`],
  ['0010 security_definer_view', 'ERROR', `
    select c.oid::regclass::text as found from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind = 'v' and n.nspname = any($1::text[])
      and (has_table_privilege('anon', c.oid, 'select') or has_table_privilege('authenticated', c.oid, 'select'))
      and not coalesce(c.reloptions, '{}') && array['security_invoker=true', 'security_invoker=on', 'security_invoker=1', 'security_invoker=yes']`],
  ['0013 rls_disabled_in_public', 'ERROR', `
    select c.oid::regclass::text as found from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p') and not c.relrowsecurity and n.nspname = any($1::text[])
      and (has_table_privilege('anon', c.oid, 'select') or has_table_privilege('authenticated', c.oid, 'select'))`],
  ['0014 extension_in_public', 'WARN', `
    select e.extname::text as found from pg_extension e where e.extnamespace = 'public'::regnamespace and e.extname <> 'plpgsql'`],
  ['0015 rls_references_user_metadata', 'ERROR', `
    select distinct tbl || ': ' || polname as found from (${policies}) p
    where coalesce(pg_get_expr(polqual, polrelid), '') || coalesce(pg_get_expr(polwithcheck, polrelid), '') ~ 'user_metadata'`],
  ['0016 materialized_view_in_api', 'WARN', `
    select c.oid::regclass::text as found from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind = 'm' and n.nspname = any($1::text[])
      and (has_table_privilege('anon', c.oid, 'select') or has_table_privilege('authenticated', c.oid, 'select'))`],
  ['0017 foreign_table_in_api', 'WARN', `
    select c.oid::regclass::text as found from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind = 'f' and n.nspname = any($1::text[])`],
  ['0018 unsupported_reg_types', 'WARN', `
    select c.oid::regclass || '.' || a.attname as found
    from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = any($2::text[]) and a.attnum > 0 and not a.attisdropped
      and a.atttypid::regtype::text in ('regcollation', 'regconfig', 'regdictionary', 'regnamespace', 'regoper', 'regoperator', 'regproc', 'regprocedure')`],
  ['0019 insecure_queue_exposed_in_api', 'ERROR', `
    select c.oid::regclass::text as found from pg_class c join pg_namespace n on n.oid = c.relnamespace
    join pg_depend d on d.objid = c.oid and d.deptype = 'e' join pg_extension e on e.oid = d.refobjid and e.extname = 'pgmq'
    where n.nspname = any($1::text[]) and not c.relrowsecurity`],
  ['0021 fkey_to_auth_unique', 'ERROR', `
    select c.conrelid::regclass || ' ' || c.conname as found
    from pg_constraint c join pg_class r on r.oid = c.confrelid join pg_index i on i.indexrelid = c.conindid
    where c.contype = 'f' and r.relnamespace = 'auth'::regnamespace and i.indisunique and not i.indisprimary`],
  ['0022 extension_versions_outdated', 'WARN', `
    select e.extname || ' ' || e.extversion || ' (' || a.default_version || ' available)' as found
    from pg_extension e join pg_available_extensions a on a.name = e.extname where a.default_version <> e.extversion`],
  ['0023 sensitive_columns_exposed', 'ERROR', `
    select c.oid::regclass || '.' || a.attname as found
    from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p') and not c.relrowsecurity and n.nspname = any($1::text[]) and a.attnum > 0 and not a.attisdropped
      and (has_table_privilege('anon', c.oid, 'select') or has_table_privilege('authenticated', c.oid, 'select'))
      and a.attname ~* '(password|passwd|secret|token|api_?key|private_key|session_id|otp|recovery_code|ssn|card_number|iban)'`],
  ['0024 rls_policy_always_true', 'WARN', `
    select distinct tbl || ': ' || polname as found from (${policies}) p
    where polpermissive and role in ('anon', 'authenticated') and (
      (cmd in ('update', 'delete') and (polqual is null or pg_get_expr(polqual, polrelid) = 'true'))
      or (cmd in ('insert', 'update') and (pg_get_expr(polwithcheck, polrelid) = 'true'
        or (polwithcheck is null and (cmd = 'insert' or pg_get_expr(polqual, polrelid) = 'true')))))`],
  ['0025 public_bucket_allows_listing', 'WARN', `
    select b.id || ': ' || p.polname as found
    from storage.buckets b, pg_policy p
    where b.public and p.polrelid = 'storage.objects'::regclass and p.polpermissive and p.polcmd in ('r', '*')
      and (p.polroles @> array[0::oid] or p.polroles && array['anon'::regrole::oid, 'authenticated'::regrole::oid])
      and (p.polqual is null or pg_get_expr(p.polqual, p.polrelid) in ('true', format('(bucket_id = %L::text)', b.id)))`],
  ['0026 pg_graphql_anon_table_exposed', 'WARN', `
    select c.oid::regclass::text as found from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where exists (select 1 from pg_extension where extname = 'pg_graphql') and c.relkind in ('r', 'v', 'm', 'f', 'p')
      and n.nspname = any($1::text[]) and has_table_privilege('anon', c.oid, 'select')`],
  ['0027 pg_graphql_authenticated_table_exposed', 'WARN', `
    select c.oid::regclass::text as found from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where exists (select 1 from pg_extension where extname = 'pg_graphql') and c.relkind in ('r', 'v', 'm', 'f', 'p')
      and n.nspname = any($1::text[]) and has_table_privilege('authenticated', c.oid, 'select')`],
  ['0028 anon_security_definer_function_executable', 'WARN', `
    select p.oid::regprocedure::text as found from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where p.prosecdef and n.nspname = any($1::text[]) and has_function_privilege('anon', p.oid, 'execute')`],
  ['0029 authenticated_security_definer_function_executable', 'WARN', `
    select p.oid::regprocedure::text as found from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where p.prosecdef and n.nspname = any($1::text[]) and has_function_privilege('authenticated', p.oid, 'execute')`],
];

/** Each lint's findings, `<lint name>: <object>`. */
async function findings(lint: string, query: string): Promise<string[]> {
  const rows = await asRoot.unsafe(query, [exposed, appSchemas]);
  return rows.map((row) => `${lint.split(' ')[1]}: ${row.found}`).sort();
}

describe('the advisors\' configuration lint', () => {
  it('0012 auth_allow_anonymous_sign_ins: anonymous sign-ins are off', () => {
    expect(config.auth.enable_anonymous_sign_ins).toBe(false);
  });
});

describe.skipIf(!authIsRunning)('the advisors\' database lints, info level and up', () => {
  it.each(lints)('%s (%s): no finding but the accepted ones', async (lint, _level, query) => {
    const found = await findings(lint, query);
    expect(found.filter((finding) => !(finding in accepted))).toEqual([]);
  });

  it('every accepted finding is still found (an accepted finding that is gone leaves the list)', async () => {
    const all = (await Promise.all(lints.map(([lint, , query]) => findings(lint, query)))).flat();
    expect(Object.keys(accepted).filter((finding) => !all.includes(finding))).toEqual([]);
  });
});
