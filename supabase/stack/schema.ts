// The declarative schema (supabase/schemas/, in the order config.toml's `schema_paths` gives) against the
// migrations: each is built into a scratch database of the stack's own Postgres, on top of what Supabase Auth's
// migrations made, and the two are compared with the Supabase CLI's diff (pg-delta), which needs no Docker.
import { join } from 'node:path';
import { readConfig, repoRoot } from './config.ts';
import { bootstrapDatabase, roleUrl } from './postgres.ts';
import { run } from './processes.ts';

/** The database as hosted Supabase has it before any app migration: bootstrap and Auth's own schema. */
const authTemplate = 'auth_baseline';
/** The schemas the app defines objects in (auth: its triggers on Auth's tables). */
const appSchemas = 'public,private,moderation,auth';

export function databaseUrl(superuserUrl: string, name: string): string {
  const url = new URL(superuserUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The local cluster has no TLS; saying so keeps the CLI from printing a warning into its output. */
export function withoutTls(url: string): string {
  const parsed = new URL(url);
  if (!parsed.searchParams.has('sslmode')) parsed.searchParams.set('sslmode', 'disable');
  return parsed.toString();
}

function psql(url: string, args: string[], logDir: string): Promise<void> {
  return run('psql', 'psql', { args: [url, '--quiet', '--no-psqlrc', '-v', 'ON_ERROR_STOP=1', ...args], logDir });
}

/**
 * Builds the base of every scratch database afresh: bootstrap, then Auth's own migrations, which
 * `migrateAuth` runs against the URL it is given (as supabase_auth_admin).
 */
export async function saveAuthTemplate(
  superuserUrl: string,
  migrateAuth: (authAdminUrl: string) => Promise<void>,
  logDir: string,
): Promise<void> {
  await dropScratch(superuserUrl, authTemplate, logDir);
  await psql(databaseUrl(superuserUrl, 'template1'), ['-c', `create database ${authTemplate}`], logDir);
  const url = databaseUrl(superuserUrl, authTemplate);
  await bootstrapDatabase(url, logDir);
  await migrateAuth(withoutTls(roleUrl(url, 'supabase_auth_admin')));
}

export function migrationFiles(): string[] {
  const dir = join(repoRoot, 'supabase', 'migrations');
  return [...Deno.readDirSync(dir)].map((entry) => entry.name).filter((name) => name.endsWith('.sql')).sort()
    .map((name) => join(dir, name));
}

export function schemaFiles(): string[] {
  const paths: string[] = readConfig().db?.migrations?.schema_paths ?? [];
  return paths.map((path) => join(repoRoot, 'supabase', path));
}

/** A fresh database `name` made from the Auth template and `files`, applied in order; returns its URL. */
export async function buildScratch(
  superuserUrl: string,
  name: string,
  files: string[],
  logDir: string,
): Promise<string> {
  await dropScratch(superuserUrl, name, logDir);
  await psql(
    databaseUrl(superuserUrl, 'template1'),
    ['-c', `create database ${name} template ${authTemplate}`],
    logDir,
  );
  const url = databaseUrl(superuserUrl, name);
  // In one transaction, as `supabase db push` applies a migration: a generated one turns function body checks
  // off for its transaction (`set local`), since it may create a function before one it calls.
  await psql(url, ['--single-transaction', ...files.flatMap((file) => ['-f', file])], logDir);
  return url;
}

export function dropScratch(superuserUrl: string, name: string, logDir: string): Promise<void> {
  return psql(databaseUrl(superuserUrl, 'template1'), ['-c', `drop database if exists ${name} with (force)`], logDir);
}

/** The SQL that turns database `from` into `to` (empty when they define the same objects). */
export async function schemaDiff(from: string, to: string): Promise<string> {
  const output = await new Deno.Command(join(repoRoot, 'node_modules', '.bin', 'supabase'), {
    args: [
      'db',
      'diff',
      '--from',
      withoutTls(from),
      '--to',
      withoutTls(to),
      '--schema',
      appSchemas,
      '--workdir',
      repoRoot,
    ],
    cwd: repoRoot,
    stdin: 'null',
    stdout: 'piped',
    stderr: 'piped',
  }).output();
  if (!output.success) throw new Error(`supabase db diff failed:\n${new TextDecoder().decode(output.stderr)}`);
  return new TextDecoder().decode(output.stdout).trim();
}
