// Every command of the Docker-free local stack (see README.md and docs/OPERATIONS.md), run by the npm scripts:
//   start  brings up the development stack from supabase/config.toml and serves until Ctrl-C
//   test   brings up a fresh, isolated stack on other ports, runs vitest against it, tears it down
//   bench  the same stack, then the benchmarks of supabase/bench/quick (figures, not pass or fail)
//   faults a fresh stack of its own (other ports again), then test/faults: real faults under load, with figures
//   bench:scale [--keep|--seed-only]  its own stack (ports +2000), seeded at scale, then figures (supabase/bench/scale.ts)
//   bench:compare <small.json> <large.json>  two scale runs side by side, with the growth targets (supabase/bench/compare.ts)
//   bench:sizes  the kept 1 M and 10 M bench databases served at once: each read at both (supabase/bench/sizes.ts)
//   bench:soak  the kept bench database served as bench:scale serves it, then an hour of mixed traffic (supabase/bench/soak.ts)
//   bench:cold  the test stack, then fresh function processes: each version's first answer (supabase/bench/cold.ts)
//   bench:replica  the test stack, then each version's cost to the primary of a replica read (supabase/bench/replica-share.ts)
//   bench:writes [--keep] [--long]  the test stack (--keep: the kept bench database), then likes and follows on one hot target and on spread ones by 16 and 64 callers (supabase/bench/writes.ts)
//   bench:auth  the test stack and a second Auth keeping no idle connection: token grants at each (supabase/bench/auth-connections.ts)
//   reset  wipes the development stack's data (database, mail, session signing key); the API keys stay (keys.ts)
//   generate  every generated file, in order (supabase/tools/generated.ts); needs `npm start` running, and applies
//             the migrations its database lacks first (as `supabase migration up`), as types and docs:rpc do
//   error-codes  only the error code lists (no stack needed)
//   types  regenerates the database types (client/ and functions/api/database.types.ts) from the running development database
//   docs:rpc  regenerates docs/RPC.md from the running development database
//   grant-admin <username> [--revoke]  grants (or revokes) admin rights in the development database
//   db:diff <name>  writes what supabase/schemas/ changes against the migrations as a new migration
//   schema-check <url>  exits 1 when supabase/schemas/ and the migrations build different databases (supabase/tools/schema-check.ts)
// The scripts that need no stack (fmt, check, lock, lint:openapi, client) run supabase/tools/ directly (package.json).
import { existsSync } from 'node:fs';
import postgres from 'postgres';
import { join } from 'node:path';
import { ensureChromiumInstalled } from '../stack/chromium.ts';
import { type Profile, profile, readConfig, repoRoot } from '../stack/config.ts';
import { elapsed, info, warn } from '../stack/log.ts';
import { livePostmaster } from '../stack/postmaster.ts';
import { assertPortFree } from '../stack/processes.ts';
import { nodeBinary } from '../stack/node.ts';
import { onGiveUp, stopAll } from '../stack/supervisor.ts';
import { localPassword } from '../stack/postgres.ts';
import { buildScratch, dropScratch, migrationFiles, schemaDiff, schemaFiles, withoutTls } from '../stack/schema.ts';
import { applyPendingMigrations, exportSendEmailHook, facadeEnv, type Stack, up } from '../stack/stack.ts';
import { integrityHolds } from '../tools/integrity.ts';
import { schemaCheck } from '../tools/schema-check.ts';
import { scaleBench } from '../bench/scale.ts';
import { compareReports } from '../bench/compare.ts';
import { sizesBench } from '../bench/sizes.ts';
import { coldBench } from '../bench/cold.ts';
import { replicaShareBench } from '../bench/replica-share.ts';
import { writesBench } from '../bench/writes.ts';
import { authConnectionsBench } from '../bench/auth-connections.ts';
import { soakBench } from '../bench/soak.ts';
import { databaseTypeFiles, errorCodeFiles, type GeneratedFile, rpcReferenceFile } from '../tools/generated.ts';

function onStopSignal(handler: () => void): void {
  Deno.addSignalListener('SIGINT', handler);
  Deno.addSignalListener('SIGTERM', handler);
}

/** What to do when no Supabase Auth could be had. */
const authHelp = 'Set SUPABASE_AUTH_BIN to a Supabase Auth v2.189.0 binary, or install one where `go install` puts ' +
  'binaries (docs/OPERATIONS.md, "Known limitation: building Supabase Auth").';

function printSummary(stack: Stack): void {
  if (stack.authUnavailable) {
    warn(
      `NOT USABLE: Supabase Auth is not running (${stack.authUnavailable.split('\n')[0]}), so neither the auth ` +
        `schema nor the app's schema exists: sign-up, login and every route that reads the database fail. ${authHelp}`,
    );
  }
  console.log(`
${stack.authUnavailable ? 'Started, without Auth,' : 'Ready'} in ${elapsed()}.
  API URL          ${stack.urls.api}
  Auth             ${stack.urls.auth}${stack.authUnavailable ? '   (NOT RUNNING, see above)' : ''}
  REST (PostgREST) ${stack.urls.rest}   (supabase-js: createClient('${stack.urls.api}', anon key))
  REST facade      ${stack.urls.functions}/api   (health: ${stack.urls.functions}/api/health)
  OpenAPI          ${stack.urls.functions}/api/openapi.json
  API reference    ${stack.urls.functions}/api/docs
  Database         ${stack.superuserUrl}${
    stack.poolerUrl
      ? `
  Pooler           ${stack.poolerUrl}   (PgBouncer, transaction mode: the facade's way in)`
      : ''
  }${
    stack.replicaUrl
      ? `
  Read replica     ${stack.replicaUrl}   (hot standby, streaming from the primary)`
      : ''
  }
  Mailpit          ${stack.urls.mailpit}
  anon key         ${stack.keys.anonKey}
  service_role key ${stack.keys.serviceRoleKey}
  JWT secret       ${stack.keys.jwtSecret}
                   fixed local keys, the same on every machine and after \`npm run reset\`: minted from a public
                   secret, they guard nothing. Never use them outside this local stack.${
    stack.demoAccounts
      ? `
  Demo accounts    ${stack.demoAccounts}
                   password "daykeeper demo", e.g. POST /auth/login {"login": "ana", "password": "daykeeper demo"}`
      : ''
  }
Press Ctrl-C to stop.`);
}

async function start(): Promise<void> {
  onStopSignal(async () => {
    info('stopping…');
    await stopAll();
    Deno.exit(0);
  });
  printSummary(await up(profile('dev', readConfig())));
}

/** Environment the test suite reads (test/helpers/stack.ts). */
function testEnv(stack: Stack, stackProfile: Profile): Record<string, string> {
  return {
    STACK_API_URL: stack.urls.api,
    STACK_FUNCTIONS_URL: `${stack.urls.functions}/api`,
    STACK_DB_URL: stack.superuserUrl,
    STACK_POOLER_URL: stack.poolerUrl ?? '',
    STACK_REPLICA_URL: stack.replicaUrl ?? '',
    STACK_MAILPIT_URL: stack.urls.mailpit,
    STACK_ANON_KEY: stack.keys.anonKey,
    STACK_SERVICE_ROLE_KEY: stack.keys.serviceRoleKey,
    STACK_AUTH_UNAVAILABLE: stack.authUnavailable ?? '',
    // The test stack's own signing key, so tests can forge expired or wrongly addressed tokens.
    STACK_SIGNING_KEY: JSON.stringify(stack.keys.signingKey),
    // The api function's environment as the stack gives it, for a test that runs the function from elsewhere.
    STACK_FUNCTION_ENV: JSON.stringify(facadeEnv(stackProfile, stack.keys, {
      primaryUrl: stack.superuserUrl,
      poolerUrl: stack.poolerUrl,
      replicaUrl: stack.replicaUrl,
    })),
    // Where the fault suite finds the services' pids, the cluster it restarts and the logs.
    STACK_DIR: stackProfile.dir,
  };
}

/** The plain closing line CI reads ("tests: N passed, N failed, N skipped"); without Auth, a loud one after it. */
async function printTally(report: string, authUnavailable?: string): Promise<void> {
  const json = await Deno.readTextFile(report).catch(() => undefined);
  if (!json) return;
  const { numPassedTests, numFailedTests, numPendingTests, numTodoTests } = JSON.parse(json);
  const skipped = numPendingTests + numTodoTests;
  console.log(`tests: ${numPassedTests} passed, ${numFailedTests} failed, ${skipped} skipped`);
  if (authUnavailable) {
    warn(`${skipped} TESTS DID NOT RUN: Supabase Auth is not installed on this machine, and they need it. ${authHelp}`);
  }
}

/** Runs vitest (`run` or `bench`) against a fresh stack of `name`, then tears the stack down. */
async function inFreshStack(name: 'test' | 'faults', mode: 'run' | 'bench', vitestArgs: string[]): Promise<number> {
  onStopSignal(async () => {
    await stopAll();
    Deno.exit(130);
  });
  const stackProfile = profile(name, readConfig());
  try {
    if (name === 'test' && mode === 'run') await ensureChromiumInstalled();
    const stack = await up(stackProfile);
    info(`${name} stack ready in ${elapsed()}; running vitest ${mode}`);
    const vitest = join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs');
    const report = join(stackProfile.dir, 'vitest.json');
    const reporters = mode === 'run' ? ['--reporter=default', '--reporter=json', `--outputFile.json=${report}`] : [];
    const config = name === 'faults' ? 'test/faults/vitest.config.ts' : 'test/vitest.config.ts';
    const run = new Deno.Command(await nodeBinary(), {
      args: [vitest, mode, '--run', '--config', config, ...reporters, ...vitestArgs],
      cwd: repoRoot,
      env: testEnv(stack, stackProfile),
      stdin: 'null',
      stdout: 'inherit',
      stderr: 'inherit',
    }).spawn();
    // A stack that gives up (a service failing again and again) ends the run with it, rather than leave vitest behind.
    onGiveUp(() => run.kill('SIGTERM'));
    const result = await run.status;
    if (mode === 'run') await printTally(report, stack.authUnavailable);
    // Without Auth there is no schema to check.
    if (mode === 'run' && !stack.authUnavailable && !(await integrityHolds(stack.superuserUrl))) return 1;
    return result.code;
  } finally {
    await stopAll();
    if (name === 'faults') assertNoPostmasterLeft(stackProfile);
  }
}

/** The fault suite restarts Postgres behind the stack's back: after the stop, none may still serve its cluster. */
function assertNoPostmasterLeft(stackProfile: Profile): void {
  const dataDir = join(stackProfile.dir, 'postgres');
  const pid = livePostmaster(dataDir);
  if (pid !== undefined) {
    warn(`FAILED: a postmaster (pid ${pid}) still serves ${dataDir} after the stack stopped: it was orphaned`);
    Deno.exit(1);
  }
  info(`stopped: no postmaster left on ${dataDir}`);
}

/** A scale benchmark with processes of its own, torn down at the end (the data stays for --keep). */
async function inBenchStack(bench: () => Promise<void>): Promise<number> {
  onStopSignal(async () => {
    await stopAll();
    Deno.exit(130);
  });
  try {
    await bench();
    return 0;
  } finally {
    await stopAll();
  }
}

async function reset(): Promise<void> {
  const dev = profile('dev', readConfig());
  assertPortFree(dev.ports.db, 'Postgres of `npm start`: stop it before a reset');
  if (existsSync(dev.dir)) await Deno.remove(dev.dir, { recursive: true });
  info(
    `removed ${dev.dir}; the next \`npm start\` creates a fresh database (the anon and service_role keys stay the same)`,
  );
}

function devDatabaseUrl(): string {
  const dev = profile('dev', readConfig());
  return dev.externalDbUrl ?? `postgresql://postgres:${localPassword}@127.0.0.1:${dev.ports.db}/postgres`;
}

async function write(files: GeneratedFile[]): Promise<void> {
  for (const { path, text } of files) {
    await Deno.writeTextFile(join(repoRoot, path), text);
    info(`wrote ${path}`);
  }
}

/**
 * The development database, first brought up to supabase/migrations/ (`applyPendingMigrations`, as `supabase
 * migration up`): a file generated from it is never generated from a database behind its migrations.
 */
async function migratedDevDatabase(): Promise<string> {
  const dev = profile('dev', readConfig());
  // supabase db push reads supabase/config.toml, whose hook needs the stack's values.
  await exportSendEmailHook(dev);
  const url = devDatabaseUrl();
  const applied = await applyPendingMigrations(url, join(dev.dir, 'logs'));
  for (const file of applied) info(`applied ${file} to the development database (supabase db push)`);
  return url;
}

/** `npm run types`: the database types from the running development database (supabase/tools/generated.ts). */
async function types(): Promise<void> {
  await migratedDevDatabase();
  let files: GeneratedFile[];
  try {
    files = databaseTypeFiles(withoutTls(devDatabaseUrl()));
  } catch (error) {
    throw new Error('supabase gen types failed: is `npm start` running?', { cause: error });
  }
  await write(files);
}

/** `npm run docs:rpc`: docs/RPC.md from the dev stack's database and the facade's route files. Needs `npm start` running. */
async function rpcReference(): Promise<void> {
  const sql = postgres(await migratedDevDatabase(), { max: 1, onnotice: () => {} });
  try {
    await write([await rpcReferenceFile(sql)]);
  } finally {
    await sql.end();
  }
}

/** `npm run generate`: every generated file, in order (supabase/tools/generated.ts). Needs `npm start` running. */
async function generate(): Promise<void> {
  // Before anything is written: a database that does not answer, or cannot be brought up to date, stops it here.
  await migratedDevDatabase();
  await write(errorCodeFiles());
  // A fresh process: the OpenAPI document is built from the app, which imports the error codes just written.
  const client = await new Deno.Command(Deno.execPath(), {
    args: ['run', '--allow-all', join(repoRoot, 'supabase', 'tools', 'openapi-tasks.ts'), 'client'],
    stdout: 'inherit',
    stderr: 'inherit',
  }).spawn().status;
  if (!client.success) throw new Error('generating client/schema.d.ts failed (see above)');
  await types();
  await rpcReference();
}

/**
 * `npm run db:diff -- <name>`: what supabase/schemas/ changes against supabase/migrations/, written as a new
 * migration to review (a diff cannot see data: add the backfills it needs by hand). Needs `npm start` running.
 */
async function dbDiff([name]: string[]): Promise<void> {
  if (!name || !/^[a-z0-9_]+$/.test(name)) throw new Error('usage: npm run db:diff -- <name_in_snake_case>');
  const superuser = devDatabaseUrl();
  const dev = profile('dev', readConfig());
  await exportSendEmailHook(dev);
  const logDir = join(dev.dir, 'logs');
  const from = await buildScratch(superuser, 'scratch_migrations', migrationFiles(), logDir);
  const to = await buildScratch(superuser, 'scratch_schemas', schemaFiles(), logDir);
  const diff = await schemaDiff(from, to);
  await dropScratch(superuser, 'scratch_migrations', logDir);
  await dropScratch(superuser, 'scratch_schemas', logDir);
  if (!diff) return info('supabase/schemas/ and supabase/migrations/ define the same database: nothing to write');
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  const file = join(repoRoot, 'supabase', 'migrations', `${stamp}_${name}.sql`);
  const header =
    `-- Generated by \`npm run db:diff -- ${name}\` from supabase/schemas/. Review it, and add the backfills\n` +
    '-- existing rows need before a new rule applies (supabase/CONVENTIONS.md).\n\n';
  await Deno.writeTextFile(file, header + diff + '\n');
  info(`wrote ${file}`);
}

async function grantAdmin([username, flag]: string[]): Promise<void> {
  if (!username) throw new Error('usage: npm run grant-admin -- <username> [--revoke]');
  const grant = flag !== '--revoke';
  // Through standard input, where psql quotes the :'username' variable safely.
  const psql = new Deno.Command('psql', {
    args: [devDatabaseUrl(), '--quiet', '--no-psqlrc', '-v', 'ON_ERROR_STOP=1', '-v', `username=${username}`],
    stdin: 'piped',
    stdout: 'null',
    stderr: 'piped',
  }).spawn();
  const writer = psql.stdin.getWriter();
  await writer.write(new TextEncoder().encode(`select private.grant_admin(:'username', ${grant});\n`));
  await writer.close();
  const result = await psql.output();
  if (!result.success) throw new Error(new TextDecoder().decode(result.stderr).trim());
  info(`${grant ? 'granted admin rights to' : 'revoked admin rights from'} @${username}`);
}

const [command, ...rest] = Deno.args;
try {
  if (command === 'start') await start();
  else if (command === 'test') Deno.exit(await inFreshStack('test', 'run', rest));
  else if (command === 'bench') Deno.exit(await inFreshStack('test', 'bench', rest));
  else if (command === 'faults') Deno.exit(await inFreshStack('faults', 'run', rest));
  else if (command === 'bench:scale') Deno.exit(await inBenchStack(() => scaleBench(rest)));
  else if (command === 'bench:compare') await compareReports(rest);
  else if (command === 'bench:sizes') Deno.exit(await inBenchStack(sizesBench));
  else if (command === 'bench:cold') Deno.exit(await inBenchStack(coldBench));
  else if (command === 'bench:replica') Deno.exit(await inBenchStack(replicaShareBench));
  else if (command === 'bench:writes') Deno.exit(await inBenchStack(() => writesBench(rest)));
  else if (command === 'bench:auth') Deno.exit(await inBenchStack(authConnectionsBench));
  else if (command === 'bench:soak') Deno.exit(await inBenchStack(() => soakBench(rest)));
  else if (command === 'reset') await reset();
  else if (command === 'types') await types();
  else if (command === 'docs:rpc') await rpcReference();
  else if (command === 'error-codes') await write(errorCodeFiles());
  else if (command === 'generate') await generate();
  else if (command === 'grant-admin') await grantAdmin(rest);
  else if (command === 'db:diff') await dbDiff(rest);
  else if (command === 'schema-check') Deno.exit(await schemaCheck(rest[0]));
  else {throw new Error(
      `unknown command "${command}": use start, test, bench, bench:scale, bench:compare, bench:sizes, bench:cold, bench:replica, bench:writes, bench:auth, bench:soak, faults, reset, generate, types, docs:rpc, error-codes, grant-admin, db:diff or schema-check`,
    );}
} catch (error) {
  warn((error as Error).message);
  await stopAll();
  Deno.exit(1);
}
