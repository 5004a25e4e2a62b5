// Brings up one local stack in order: Postgres, its streaming replica and the pooler in front of it → Mailpit →
// Supabase Auth → app migrations → PostgREST → the facade, all behind the gateway. What `supabase start` does with Docker, done with native processes.
import { basename, join } from 'node:path';
import { authBinary, authVersion, mailpitBinary } from './binaries.ts';
import { type Profile, readConfig, repoRoot, urls } from './config.ts';
import { authEnv } from './auth-env.ts';
import { facadeArgs, facadeFlags } from './facade-command.ts';
import { startGateway } from './gateway.ts';
import { publicJwks, type StackKeys, stackKeys } from './keys.ts';
import { info, step, warn } from './log.ts';
import { postgrestBinary, postgrestEnv, postgrestVersion } from './postgrest.ts';
import { ensurePgbouncerInstalled, poolerSettings, startPgbouncer } from './pgbouncer.ts';
import { bootstrapDatabase, ensurePostgresInstalled, queryValue, roleUrl, startPostgres } from './postgres.ts';
import { startReplica } from './replica.ts';
import { assertPortFree, httpOk, logPath, reservePorts, run, type Running, spawnReady } from './processes.ts';
import { migrationFiles, saveAuthTemplate } from './schema.ts';
import { setRunDir, supervise } from './supervisor.ts';

export interface Stack {
  urls: ReturnType<typeof urls>;
  keys: StackKeys;
  superuserUrl: string;
  /** The same database through the transaction pooler (the facade's way in), when the stack runs one. */
  poolerUrl?: string;
  /** The streaming read replica (superuser), when the stack runs one. */
  replicaUrl?: string;
  /** The PostgREST binary the stack runs. */
  postgrest: string;
  /** Why Supabase Auth is not running, when it is not. */
  authUnavailable?: string;
  /** The demo accounts of supabase/seed.sql in this database, for `npm start` to list ('' when none). */
  demoAccounts: string;
}

/** The development database's demo accounts, each with what it shows (admin, private, banned). */
function demoAccounts(superuserUrl: string): Promise<string> {
  return queryValue(
    superuserUrl,
    `
    select coalesce(string_agg(p.username || case
        when exists (select 1 from private.admins a where a.user_id = p.id) then ' (admin)'
        when p.banned_at is not null then ' (banned)'
        when p.is_private then ' (private)' else '' end, ', ' order by p.username), '')
    from public.profiles p join auth.users u on u.id = p.id
    where u.email like '%@demo.daykeeper.test'`,
  );
}

/** supabase/seed.sql and any other `[db.seed] sql_paths`, as the Supabase CLI applies them to a fresh database. */
export async function seed(superuserUrl: string, logDir: string): Promise<void> {
  const { seed } = readConfig().db ?? {};
  if (!seed?.enabled) return;
  for (const path of seed.sql_paths ?? []) {
    await run('seed', 'psql', {
      args: [superuserUrl, '--quiet', '--no-psqlrc', '-v', 'ON_ERROR_STOP=1', '-f', join(repoRoot, 'supabase', path)],
      logDir,
    });
  }
}

async function startMailpit(profile: Profile, logDir: string): Promise<void> {
  const binary = await mailpitBinary(logDir);
  const database = profile.name === 'dev' ? ['--database', join(profile.dir, 'mailpit.db')] : [];
  const args = [
    '--smtp',
    `127.0.0.1:${profile.ports.smtp}`,
    '--listen',
    `127.0.0.1:${profile.ports.mailApi}`,
    '--smtp-disable-rdns',
    '--disable-version-check',
    ...database,
  ];
  await supervise({
    name: 'mailpit',
    logFile: logPath(logDir, 'mailpit'),
    start: () =>
      spawnReady('mailpit', binary, { args, logDir }, {
        what: 'Mailpit',
        check: httpOk(`${urls(profile).mailpit}/readyz`),
      }),
  });
}

/** Supabase Auth's environment as the stack runs it for `profile`. */
export function authServerEnv(profile: Profile, keys: StackKeys, superuserUrl: string): Record<string, string> {
  const config = readConfig();
  // Every test client is 127.0.0.1, one bucket for Auth's per-IP limits: the test and fault stacks lift them, and
  // Auth's own interval between two e-mails to an account (the Send Email hook's, which the tests check, still
  // applies). The bench stack signs its drivers in again on
  // every run, so it lifts them too.
  if (profile.name !== 'dev') {
    config.auth.rate_limit = {
      ...config.auth.rate_limit,
      sign_in_sign_ups: 100000,
      token_refresh: 100000,
      token_verifications: 100000,
    };
    config.auth.email.max_frequency = '1s';
  }
  return authEnv({
    config,
    keys,
    port: profile.ports.auth,
    externalUrl: urls(profile).auth,
    databaseUrl: roleUrl(superuserUrl, 'supabase_auth_admin') + '?sslmode=disable',
    smtpPort: profile.ports.smtp,
  });
}

async function startAuth(profile: Profile, binary: string, keys: StackKeys, superuserUrl: string, logDir: string) {
  const env = authServerEnv(profile, keys, superuserUrl);
  await run('auth-migrate', binary, { args: ['migrate'], env, logDir });
  // The base of the scratch databases `npm run db:diff` and the schema test build.
  await saveAuthTemplate(
    superuserUrl,
    (url) =>
      run('auth-migrate-template', binary, { args: ['migrate'], env: { ...env, GOTRUE_DB_DATABASE_URL: url }, logDir }),
    logDir,
  );
  await supervise({
    name: 'auth',
    logFile: logPath(logDir, 'auth'),
    start: () =>
      spawnReady('auth', binary, { args: ['serve'], env, logDir }, {
        what: 'Supabase Auth',
        check: httpOk(`${urls(profile).authDirect}/health`),
      }),
  });
  await checkAuthVersion(profile);
}

/** Says plainly when the running Auth is not the pinned version, or does not tell its version. */
async function checkAuthVersion(profile: Profile): Promise<void> {
  const health = await fetch(`${urls(profile).authDirect}/health`).then((response) => response.json()).catch(
    () => ({}),
  );
  const version = typeof health.version === 'string' && health.version ? health.version : undefined;
  if (version === authVersion) info(`Supabase Auth reports ${version}, the pinned version`);
  else if (version) warn(`Supabase Auth reports ${version}, NOT the pinned ${authVersion}: results may differ`);
  else warn(`Supabase Auth does not report its version; the pin is ${authVersion}`);
}

async function pushMigrations(superuserUrl: string, logDir: string): Promise<void> {
  await run('db-push', join(repoRoot, 'node_modules', '.bin', 'supabase'), {
    args: ['db', 'push', `--remote=${superuserUrl}`, '--include-all', '--yes', '--workdir', repoRoot],
    cwd: repoRoot,
    logDir,
  });
}

/**
 * Brings the database at `superuserUrl` up to supabase/migrations/, as `supabase migration up` does for a local
 * project: what reads the database to write a file (`npm run generate`) never reads one behind its migrations.
 * Returns the migrations it applied; refuses, naming the fix, a database that applied one the folder lacks.
 */
export async function applyPendingMigrations(superuserUrl: string, logDir: string): Promise<string[]> {
  const listed = await queryValue(
    superuserUrl,
    `select case when to_regclass('supabase_migrations.schema_migrations') is null then 'none'
       else (select coalesce(string_agg(version, ',' order by version), '') from supabase_migrations.schema_migrations)
     end`,
  ).catch((error) => {
    throw new Error(`the development database does not answer: is \`npm start\` running? (${error.message})`);
  });
  if (listed === 'none') {
    throw new Error(
      'the development database has no migrations at all: `npm start` applies them (it needs Supabase Auth)',
    );
  }
  const applied = listed.split(',').filter(Boolean);
  const files = migrationFiles().map((path) => basename(path));
  const version = (file: string) => file.split('_')[0];
  const unknown = applied.filter((v) => !files.some((file) => version(file) === v));
  if (unknown.length > 0) {
    throw new Error(
      `the development database applied migrations that supabase/migrations/ no longer has (${unknown.join(', ')}): ` +
        'stop `npm start`, then `npm run reset` and `npm start` rebuild it from the folder',
    );
  }
  const pending = files.filter((file) => !applied.includes(version(file)));
  if (pending.length > 0) await pushMigrations(superuserUrl, logDir);
  return pending;
}

/** PostgREST, once the schema is in place: it reads the schema cache at start, then reloads it on NOTIFY pgrst. */
async function startPostgrest(profile: Profile, binary: string, keys: StackKeys, superuserUrl: string, logDir: string) {
  const env = postgrestEnv({
    config: readConfig(),
    keys,
    databaseUrl: roleUrl(superuserUrl, 'authenticator'),
    port: profile.ports.rest,
    adminPort: profile.ports.restAdmin,
  });
  await supervise({
    name: 'postgrest',
    logFile: logPath(logDir, 'postgrest'),
    start: () =>
      spawnReady('postgrest', binary, { args: [], env, logDir }, {
        what: 'PostgREST',
        // Ready: connected, with its schema cache loaded.
        check: httpOk(`${urls(profile).restAdmin}/ready`),
      }),
  });
}

/** Where a facade process reaches its databases (superuser URLs: the facade logs in as `authenticator`). */
export interface FacadeDatabases {
  /** SUPABASE_DB_URL: the primary, directly. */
  primaryUrl: string;
  /** DB_POOLER_URL: the primary through the transaction pooler, which the facade then uses. */
  poolerUrl?: string;
  /** DB_REPLICA_URLS. */
  replicaUrl?: string;
}

/** The api function's environment, as the stack gives it (PORT aside): its services, keys and databases. */
export function facadeEnv(profile: Profile, keys: StackKeys, databases: FacadeDatabases): Record<string, string> {
  const config = readConfig();
  const env: Record<string, string> = {
    NO_COLOR: '1', // plain text in its log
    SUPABASE_URL: urls(profile).api,
    SUPABASE_ANON_KEY: keys.anonKey,
    SUPABASE_SERVICE_ROLE_KEY: keys.serviceRoleKey,
    SUPABASE_DB_URL: roleUrl(databases.primaryUrl, 'authenticator'),
    SUPABASE_JWKS: JSON.stringify(publicJwks(keys)),
    SMTP_SERVER: `127.0.0.1:${profile.ports.smtp}`,
    SMTP_FROM: `${config.local_smtp.sender_name} <${config.local_smtp.admin_email}>`,
    SEND_EMAIL_HOOK_SECRET: keys.sendEmailHookSecret,
    AUTH_REDIRECT_URLS: [config.auth.site_url, ...(config.auth.additional_redirect_urls ?? [])].join(','),
  };
  if (databases.poolerUrl) env.DB_POOLER_URL = roleUrl(databases.poolerUrl, 'authenticator');
  if (databases.replicaUrl) env.DB_REPLICA_URLS = roleUrl(databases.replicaUrl, 'authenticator');
  return env;
}

/**
 * Starts the facade as its own Deno process from functions/api/index.ts, as the Edge Runtime would run it, on
 * `port`. The stack runs one under supervision; the scale benchmark starts others beside it, and the cold-start
 * benchmark times it, another checkout's (`checkout`: its folder and the flags its stack ran it with) too.
 */
export function spawnFacade(
  profile: Profile,
  keys: StackKeys,
  databases: FacadeDatabases,
  name: string,
  port: number,
  logDir: string,
  checkout = { dir: join(repoRoot, 'functions', 'api'), flags: facadeFlags },
): Promise<Running> {
  const env = { ...facadeEnv(profile, keys, databases), PORT: String(port) };
  const traced = Boolean(profile.facadeV8Flags?.length);
  const v8Flags = traced ? [`--v8-flags=${profile.facadeV8Flags!.join(',')}`] : [];
  const args = facadeArgs(checkout.dir, [...checkout.flags, ...v8Flags]);
  // V8 prints its traces through C's stdout, which holds 4 KB when it is a pipe: coreutils' stdbuf makes it
  // write each line as printed (and execs Deno, so the pid stays the function's).
  const [command, commandArgs] = traced ? ['stdbuf', ['-oL', Deno.execPath(), ...args]] : [Deno.execPath(), args];
  return spawnReady(name, command, { args: commandArgs, env, cwd: repoRoot, logDir }, {
    what: 'the api function',
    // Asked every 5 ms: it answers within a fraction of a second of its spawn (bench:cold, "started by the stack").
    intervalMs: 5,
    // Any answer will do (its /health is 503 while Auth is down): the function serves.
    check: async () => {
      const response = await fetch(`http://127.0.0.1:${port}/api/health`);
      await response.body?.cancel();
      return true;
    },
  });
}

/** The stack's facade: through the pooler, as a hosted Edge Function reaches its database, reading from the replica. */
function startFunctions(profile: Profile, keys: StackKeys, databases: Databases, logDir: string): Promise<void> {
  const reaches = {
    primaryUrl: databases.superuserUrl,
    poolerUrl: databases.poolerUrl,
    replicaUrl: databases.replicaUrl,
  };
  return supervise({
    name: 'functions',
    logFile: logPath(logDir, 'functions'),
    start: () => spawnFacade(profile, keys, reaches, 'functions', profile.ports.functions, logDir),
  });
}

export interface Databases {
  superuserUrl: string;
  poolerUrl?: string;
  replicaUrl?: string;
}

/**
 * Postgres 15, made to look like hosted Supabase, with its streaming replica and the transaction pooler in
 * front. A database of the user's own (SUPABASE_DB_URL) is used as it is: no replica, no pooler.
 */
async function startDatabases(profile: Profile, logDir: string): Promise<Databases> {
  await ensurePostgresInstalled(logDir);
  if (profile.externalDbUrl) {
    await bootstrapDatabase(profile.externalDbUrl, logDir);
    return { superuserUrl: profile.externalDbUrl };
  }
  const superuserUrl = await startPostgres(profile, logDir);
  await bootstrapDatabase(superuserUrl, logDir);
  const replicaUrl = profile.replica ? await startReplica(profile, superuserUrl, logDir) : undefined;
  const config = readConfig();
  if (!poolerSettings(config).enabled) return { superuserUrl, replicaUrl };
  await ensurePgbouncerInstalled(logDir);
  await startPgbouncer({ config, dir: profile.dir, port: profile.ports.pooler, primaryPort: profile.ports.db, logDir });
  const poolerUrl = new URL(superuserUrl);
  poolerUrl.port = String(profile.ports.pooler);
  return { superuserUrl, replicaUrl, poolerUrl: poolerUrl.toString() };
}

/**
 * config.toml's Send Email hook reads SEND_EMAIL_HOOK_URI and SEND_EMAIL_HOOK_SECRET, as `supabase config push`
 * does: this profile's function, through the gateway as on a hosted project, and its secret. Every Supabase CLI
 * command reads (and checks) the config, so they are set in this process, whose children inherit them.
 */
export async function exportSendEmailHook(profile: Profile): Promise<StackKeys> {
  const keys = await stackKeys(profile.dir);
  Deno.env.set('SEND_EMAIL_HOOK_URI', `${urls(profile).functions}/api/hooks/send_email`);
  Deno.env.set('SEND_EMAIL_HOOK_SECRET', keys.sendEmailHookSecret);
  return keys;
}

export async function up(profile: Profile): Promise<Stack> {
  if (profile.fresh) await Deno.remove(profile.dir, { recursive: true }).catch(() => {});
  await Deno.mkdir(profile.dir, { recursive: true });
  const logDir = join(profile.dir, 'logs');
  const { ports } = profile;
  reservePorts(Object.values(ports));
  assertPortFree(ports.api, 'API gateway', profile.portShiftVariable);
  assertPortFree(ports.mailApi, 'Mailpit', profile.portShiftVariable);
  assertPortFree(ports.smtp, 'Mailpit SMTP', profile.portShiftVariable);
  assertPortFree(ports.auth, 'Supabase Auth', profile.portShiftVariable);
  assertPortFree(ports.functions, 'api function', profile.portShiftVariable);
  assertPortFree(ports.rest, 'PostgREST', profile.portShiftVariable);
  assertPortFree(ports.restAdmin, 'PostgREST admin', profile.portShiftVariable);
  assertPortFree(ports.pooler, 'PgBouncer', profile.portShiftVariable);
  const postgrest = postgrestBinary();
  if ('error' in postgrest) throw new Error(postgrest.error);
  info(`logs: ${logDir}`);
  setRunDir(join(profile.dir, 'run'));

  const databases = await step('Postgres 15, its replica and PgBouncer', () => startDatabases(profile, logDir));
  const { superuserUrl } = databases;
  await step('Mailpit', () => startMailpit(profile, logDir));
  const keys = await exportSendEmailHook(profile);
  const auth = await authBinary(logDir);
  const authUnavailable = 'error' in auth ? auth.error : undefined;
  if ('error' in auth) warn(`Supabase Auth is NOT running: ${auth.error}`);
  else {
    info(`Supabase Auth binary: ${auth.path}`);
    await step('Supabase Auth', () => startAuth(profile, auth.path, keys, superuserUrl, logDir));
  }
  let demo = '';
  if (authUnavailable) {
    warn('app migrations skipped: they build on the auth schema, which Supabase Auth creates');
  } else {
    const fresh =
      await queryValue(superuserUrl, `select to_regclass('supabase_migrations.schema_migrations') is null`) === 't';
    await step('migrations (supabase db push)', () => pushMigrations(superuserUrl, logDir));
    // The demo network, on a fresh development database only: never the tests', never a database of yours.
    if (fresh && profile.name === 'dev' && !profile.externalDbUrl) {
      await step('demo network (supabase/seed.sql)', () => seed(superuserUrl, logDir));
    }
    if (profile.name === 'dev') demo = await demoAccounts(superuserUrl);
  }
  info(`PostgREST binary: ${postgrest.path}`);
  await step(
    `PostgREST ${postgrestVersion}`,
    () => startPostgrest(profile, postgrest.path, keys, superuserUrl, logDir),
  );
  await step('api function and gateway', async () => {
    await startFunctions(profile, keys, databases, logDir);
    await startGateway({
      port: profile.ports.api,
      auth: urls(profile).authDirect,
      functions: urls(profile).functionsDirect,
      rest: urls(profile).restDirect,
      apiKeys: [keys.anonKey, keys.serviceRoleKey],
      forwardingKey: keys.serviceRoleKey,
      dir: join(profile.dir, 'gateway'),
      logDir,
    });
  });
  return { urls: urls(profile), keys, ...databases, postgrest: postgrest.path, authUnavailable, demoAccounts: demo };
}
