// `npm run bench:auth`: what Supabase Auth's database connections cost its token grants (issue 42;
// docs/PERFORMANCE.md, "Supabase Auth's database connections"). On a fresh test stack, a second Auth server runs
// beside the stack's, built and set up the same but keeping no idle connection, as Auth does when
// GOTRUE_DB_MAX_IDLE_POOL_SIZE is not set (the stack before it set it). Load accounts send refresh grants, then
// password grants, back to back, to one server for a round, then to the other, round after round, so both meet
// the same seconds of a shared, noisy machine. Per grant and server: requests, p50, p99, and the Postgres sessions
// opened per request (pg_stat_database.sessions, read on one connection kept open). The report goes to
// supabase/bench/reports/AUTH-CONNECTIONS.md.
//   BENCH_AUTH_CLIENTS (default 8) accounts sending at once; BENCH_AUTH_ROUNDS (default 6) rounds per server and
//   grant; BENCH_AUTH_ROUND_MS (default 5000) each round's length.
import { join } from 'node:path';
import postgres from 'postgres';
import { authBinary } from '../stack/binaries.ts';
import { profile, readConfig, repoRoot, urls } from '../stack/config.ts';
import { info, step } from '../stack/log.ts';
import { httpOk, spawnReady } from '../stack/processes.ts';
import { authServerEnv, up } from '../stack/stack.ts';
import { type Driver, driverPassword, signUpDrivers } from './drivers.ts';
import { startHeader } from './start-header.ts';
import { ms, percentile, ratio } from './stats.ts';

interface Server {
  label: string;
  url: string;
}

type Grant = 'refresh_token' | 'password';

interface Tally {
  latencies: number[];
  failures: number;
  sessions: number;
}

const settleMs = 1_500;
const sleep = (msValue: number) => new Promise((resolve) => setTimeout(resolve, msValue));

/** One grant for `driver` at `server`; a refresh keeps the new refresh token (rotation spends the old one). */
async function grant(server: Server, kind: Grant, driver: Driver, anonKey: string): Promise<boolean> {
  const body = kind === 'refresh_token'
    ? { refresh_token: driver.refreshToken }
    : { email: driver.email, password: driverPassword };
  const response = await fetch(`${server.url}/token?grant_type=${kind}`, {
    method: 'POST',
    headers: { apikey: anonKey, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = await response.json();
  if (response.ok && kind === 'refresh_token') driver.refreshToken = answer.refresh_token;
  return response.ok;
}

/** Every driver sends `kind` grants to `server`, back to back, for `roundMs`. */
async function round(
  server: Server,
  kind: Grant,
  drivers: Driver[],
  anonKey: string,
  roundMs: number,
  tally: Tally,
): Promise<void> {
  const end = performance.now() + roundMs;
  await Promise.all(drivers.map(async (driver) => {
    while (performance.now() < end) {
      const start = performance.now();
      const ok = await grant(server, kind, driver, anonKey);
      if (ok) tally.latencies.push(performance.now() - start);
      else tally.failures++;
    }
  }));
}

export async function authConnectionsBench(): Promise<void> {
  const header = await startHeader();
  const clients = Math.max(1, Number(Deno.env.get('BENCH_AUTH_CLIENTS') || 8));
  const rounds = Math.max(1, Number(Deno.env.get('BENCH_AUTH_ROUNDS') || 6));
  const roundMs = Math.max(1_000, Number(Deno.env.get('BENCH_AUTH_ROUND_MS') || 5_000));
  const stackProfile = profile('test', readConfig());
  const stack = await up(stackProfile);
  if (stack.authUnavailable) throw new Error(`bench:auth needs Supabase Auth: ${stack.authUnavailable}`);
  const logDir = join(stackProfile.dir, 'logs');
  const binary = await authBinary(logDir);
  if ('error' in binary) throw new Error(binary.error);

  const port = stackProfile.ports.auth + 100;
  const env = {
    ...authServerEnv(stackProfile, stack.keys, stack.superuserUrl),
    GOTRUE_API_PORT: String(port),
    GOTRUE_DB_MAX_IDLE_POOL_SIZE: '0',
  };
  const withoutIdle = await step(
    'a second Supabase Auth, keeping no idle connection',
    () =>
      spawnReady('auth-no-idle', binary.path, { args: ['serve'], env, logDir }, {
        what: 'the second Supabase Auth',
        check: httpOk(`http://127.0.0.1:${port}/health`),
      }),
  );
  const servers: Server[] = [
    { label: 'no idle connection (before)', url: `http://127.0.0.1:${port}` },
    { label: 'up to 10 idle (the stack, after)', url: urls(stackProfile).authDirect },
  ];
  const sql = postgres(stack.superuserUrl, { max: 1, onnotice: () => {} });
  const sessions = async () => {
    await sql`select pg_stat_clear_snapshot()`;
    const [row] = await sql`select sessions::int as n from pg_stat_database where datname = current_database()`;
    return row.n as number;
  };
  try {
    const drivers = await step(`${clients} accounts signed in`, () => signUpDrivers(stack, clients, 'authbench'));
    const tallies = new Map<string, Tally>();
    for (const kind of ['refresh_token', 'password'] as Grant[]) {
      await step(`${rounds} rounds of ${kind} grants per server, ${roundMs} ms each`, async () => {
        for (let r = 0; r < rounds; r++) {
          // Each round in another order, so neither server always follows the other.
          for (const server of r % 2 ? [...servers].reverse() : servers) {
            const key = `${kind} ${server.label}`;
            const tally = tallies.get(key) ?? { latencies: [], failures: 0, sessions: 0 };
            tallies.set(key, tally);
            const before = await sessions();
            await round(server, kind, drivers, stack.keys.anonKey, roundMs, tally);
            // A backend's counts reach the statistics when it ends or after a second.
            await sleep(settleMs);
            tally.sessions += await sessions() - before;
          }
        }
      });
    }
    await report(header, tallies, servers, { clients, rounds, roundMs });
  } finally {
    await sql.end();
    await withoutIdle.stop();
  }
}

async function report(
  header: string[],
  tallies: Map<string, Tally>,
  servers: Server[],
  run: { clients: number; rounds: number; roundMs: number },
): Promise<void> {
  const rows: string[] = [];
  const row = (kind: Grant, label: string, tally: Tally) => {
    const n = tally.latencies.length;
    return `| ${kind} | ${label} | ${n.toLocaleString('en')} | ${tally.failures} | ${
      ms(percentile(tally.latencies, 50))
    } | ${ms(percentile(tally.latencies, 99))} | ${(tally.sessions / Math.max(1, n)).toFixed(2)} |`;
  };
  for (const kind of ['refresh_token', 'password'] as Grant[]) {
    const [before, after] = servers.map((server) => tallies.get(`${kind} ${server.label}`)!);
    rows.push(
      row(kind, servers[0].label, before),
      row(kind, servers[1].label, after),
      `| ${kind} | after / before | | | ${ratio(percentile(after.latencies, 50), percentile(before.latencies, 50))} | ${
        ratio(percentile(after.latencies, 99), percentile(before.latencies, 99))
      } | |`,
    );
  }
  const text = [
    "# Supabase Auth's database connections: token grants with and without idle connections",
    '',
    ...header.map((line) => `- ${line}`),
    '- command: `npm run bench:auth` (supabase/bench/auth-connections.ts)',
    `- ${run.clients} accounts sending at once, straight to each Auth server (not through the gateway); ${run.rounds} rounds of ${run.roundMs} ms per server and grant, the servers taking turns`,
    '- sessions per request: Postgres sessions opened during the rounds (pg_stat_database.sessions) over the requests answered; the reading connection stays open',
    '',
    '| grant | Auth server | requests | failed | p50 ms | p99 ms | Postgres sessions per request |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
  const file = join(repoRoot, 'supabase', 'bench', 'reports', 'AUTH-CONNECTIONS.md');
  await Deno.writeTextFile(file, text);
  console.log(text);
  info(`report: ${file}`);
}
