// Supabase's database advisors (splinter's lints, github.com/supabase/splinter), from the `info` level up, run
// against the migrated database: those the pinned CLI knows through `supabase db advisors` (no Docker needed,
// only the database URL), and the five newer ones it lacks (0025 to 0029) through this suite's own queries,
// written from each lint's documented rule. A finding fails the test unless `accepted` gives why it stands.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { asRoot } from '../helpers/db.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';

const config = parse(readFileSync('supabase/config.toml', 'utf8')) as {
  api: { schemas: string[] };
  auth: { enable_anonymous_sign_ins: boolean };
  storage: { buckets: Record<string, { public?: boolean }> };
};

/**
 * The private tables no client role has a privilege on. RLS is on with no policy, so that a grant added by
 * mistake still shows them no row: only security definer helpers and the server read and write them.
 */
const serverOnlyTables = [
  'account_changes',
  'admins',
  'banned_emails',
  'code_attempts',
  'code_mails',
  'factor_address_checks',
  'factor_code_checks',
  'factor_owner_proofs',
  'factor_recoveries',
  'feed_sources',
  'hook_deliveries',
  'idempotent_requests',
  'mail_counts',
  'mail_limits',
  'owner_proof_failures',
  'post_mention_notices',
  'recipient_mails',
  'request_counts',
  'request_limits',
  'reserved_usernames',
  'time_zones',
  'trusted_writers',
  'unknowable_passwords',
  'write_counts',
  'write_limit_history',
  'write_limits',
  'write_marks',
];

/** Findings that stand, by the advisors' cache key, each with why. */
const accepted: Record<string, string> = Object.fromEntries(serverOnlyTables.map((table) => [
  `rls_enabled_no_policy_private_${table}`,
  'a table for the server alone: RLS without a policy refuses every row to a client role',
]));

/** Lints whose every finding stands here, and why. */
const acceptedLints: Record<string, string> = {
  unused_index: 'reads the usage statistics, which on a test database say nothing of production',
  table_bloat: 'reads the dead-row statistics, as above',
};

/** The current lints the pinned CLI lacks: number and name, and a query whose rows (`found`) are the findings. */
const newerLints: [string, string][] = [
  // The local stack runs no Storage (no storage.objects: nothing to find); a hosted project's policies are these.
  [
    '0025 public_bucket_allows_listing',
    `
    select b.id || ': ' || p.polname as found
    from unnest($2::text[]) b(id), pg_policy p
    where p.polrelid = to_regclass('storage.objects') and p.polpermissive and p.polcmd in ('r', '*')
      and (p.polroles @> array[0::oid] or p.polroles && array['anon'::regrole::oid, 'authenticated'::regrole::oid])
      and (p.polqual is null or pg_get_expr(p.polqual, p.polrelid) in ('true', format('(bucket_id = %L::text)', b.id)))`,
  ],
  // The local stack has no pg_graphql: nothing to find. A hosted project that enables it exposes public's tables
  // through GraphQL too (RLS still applies), and these two list them.
  [
    '0026 pg_graphql_anon_table_exposed',
    `
    select c.oid::regclass::text as found from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where exists (select 1 from pg_extension where extname = 'pg_graphql') and c.relkind in ('r', 'v', 'm', 'f', 'p')
      and n.nspname = any($1::text[]) and has_table_privilege('anon', c.oid, 'select')`,
  ],
  [
    '0027 pg_graphql_authenticated_table_exposed',
    `
    select c.oid::regclass::text as found from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where exists (select 1 from pg_extension where extname = 'pg_graphql') and c.relkind in ('r', 'v', 'm', 'f', 'p')
      and n.nspname = any($1::text[]) and has_table_privilege('authenticated', c.oid, 'select')`,
  ],
  [
    '0028 anon_security_definer_function_executable',
    `
    select p.oid::regprocedure::text as found from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where p.prosecdef and n.nspname = any($1::text[]) and has_function_privilege('anon', p.oid, 'execute')`,
  ],
  [
    '0029 authenticated_security_definer_function_executable',
    `
    select p.oid::regprocedure::text as found from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where p.prosecdef and n.nspname = any($1::text[]) and has_function_privilege('authenticated', p.oid, 'execute')`,
  ],
];

describe("the advisors' configuration lint", () => {
  it('0012 auth_allow_anonymous_sign_ins: anonymous sign-ins are off', () => {
    expect(config.auth.enable_anonymous_sign_ins).toBe(false);
  });
});

describe.skipIf(!authIsRunning)("the advisors' database lints, info level and up", () => {
  it('supabase db advisors finds nothing but the accepted findings', () => {
    const run = spawnSync('node_modules/.bin/supabase', [
      'db',
      'advisors',
      `--remote=${stack.dbUrl}?sslmode=disable`,
      '--level',
      'info',
      '--output-format',
      'json',
    ], { encoding: 'utf8', timeout: 120_000 });
    expect(run.status, run.stderr).toBe(0);
    const results: { name: string; cacheKey: string }[] = JSON.parse(run.stdout).results;
    const keys = results.filter((result) => !(result.name in acceptedLints)).map((result) => result.cacheKey);
    expect(keys.filter((key) => !(key in accepted)).sort()).toEqual([]);
    // An accepted finding that is gone leaves the list.
    expect(Object.keys(accepted).filter((key) => !keys.includes(key))).toEqual([]);
  }, 130_000);

  it.each(newerLints)('%s: no finding', async (_lint, query) => {
    // $1: the schemas PostgREST exposes; $2: the public buckets of config.toml.
    const publicBuckets = Object.entries(config.storage.buckets).filter(([, bucket]) => bucket.public).map(([id]) =>
      id
    );
    const rows = await asRoot.unsafe(`with parameters as (select $1::text[], $2::text[]) ${query}`, [
      config.api.schemas,
      publicBuckets,
    ]);
    expect(rows.map((row) => row.found)).toEqual([]);
  });
});
