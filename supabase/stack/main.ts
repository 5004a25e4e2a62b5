// `npm start`, `npm test` and `npm run reset`: the Docker-free local stack (see README.md).
//   start  brings up the development stack from supabase/config.toml and serves until Ctrl-C
//   test   brings up a fresh, isolated stack on other ports, runs vitest against it, tears it down
//   reset  wipes the development stack's data (database, mail, keys)
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { profile, readConfig, repoRoot } from './config.ts';
import { elapsed, info, warn } from './log.ts';
import { assertPortFree, stopAll } from './processes.ts';
import { type Stack, up } from './stack.ts';

function onStopSignal(handler: () => void): void {
  Deno.addSignalListener('SIGINT', handler);
  Deno.addSignalListener('SIGTERM', handler);
}

function printSummary(stack: Stack): void {
  console.log(`
Ready in ${elapsed()}.
  API URL          ${stack.urls.api}
  Auth             ${stack.urls.auth}${stack.authUnavailable ? '   (NOT RUNNING, see above)' : ''}
  REST facade      ${stack.urls.functions}/api   (health: ${stack.urls.functions}/api/health)
  OpenAPI          ${stack.urls.functions}/api/openapi.json
  Database         ${stack.superuserUrl}
  Mailpit          ${stack.urls.mailpit}
  anon key         ${stack.keys.anonKey}
  service_role key ${stack.keys.serviceRoleKey}
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
function testEnv(stack: Stack): Record<string, string> {
  return {
    STACK_API_URL: stack.urls.api,
    STACK_FUNCTIONS_URL: `${stack.urls.functions}/api`,
    STACK_DB_URL: stack.superuserUrl,
    STACK_MAILPIT_URL: stack.urls.mailpit,
    STACK_ANON_KEY: stack.keys.anonKey,
    STACK_SERVICE_ROLE_KEY: stack.keys.serviceRoleKey,
    STACK_AUTH_UNAVAILABLE: stack.authUnavailable ?? '',
  };
}

/** The plain closing line CI reads: "tests: N passed, N failed, N skipped". */
async function printTally(report: string): Promise<void> {
  const json = await Deno.readTextFile(report).catch(() => undefined);
  if (!json) return;
  const { numPassedTests, numFailedTests, numPendingTests, numTodoTests } = JSON.parse(json);
  console.log(`tests: ${numPassedTests} passed, ${numFailedTests} failed, ${numPendingTests + numTodoTests} skipped`);
}

async function test(vitestArgs: string[]): Promise<number> {
  onStopSignal(async () => {
    await stopAll();
    Deno.exit(130);
  });
  try {
    const stack = await up(profile('test', readConfig()));
    info(`test stack ready in ${elapsed()}; running vitest`);
    const vitest = join(repoRoot, 'node_modules', '.bin', 'vitest');
    const report = join(repoRoot, '.local', 'test', 'vitest.json');
    const result = await new Deno.Command(vitest, {
      args: ['run', '--config', 'test/vitest.config.ts', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...vitestArgs],
      cwd: repoRoot,
      env: testEnv(stack),
      stdin: 'null',
      stdout: 'inherit',
      stderr: 'inherit',
    }).spawn().status;
    if (stack.authUnavailable) warn(`Supabase Auth was not running, so the tests that need it were skipped.`);
    await printTally(report);
    return result.code;
  } finally {
    await stopAll();
  }
}

async function reset(): Promise<void> {
  const dev = profile('dev', readConfig());
  assertPortFree(dev.ports.db, 'Postgres of `npm start`: stop it before a reset');
  if (existsSync(dev.dir)) await Deno.remove(dev.dir, { recursive: true });
  info(`removed ${dev.dir}; the next \`npm start\` creates a fresh database and keys`);
}

const [command, ...rest] = Deno.args;
try {
  if (command === 'start') await start();
  else if (command === 'test') Deno.exit(await test(rest));
  else if (command === 'reset') await reset();
  else throw new Error(`unknown command "${command}": use start, test or reset`);
} catch (error) {
  warn((error as Error).message);
  await stopAll();
  Deno.exit(1);
}
