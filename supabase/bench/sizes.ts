// `npm run bench:sizes`: each API read at both kept sizes at the same moments. Two runs of `bench:scale`, one
// after the other, put a shared machine's quiet minutes on one size and its busy ones on the other; here the
// 1 M and the 10 M bench databases (each seeded and run once with `bench:scale --keep`, which signs the reader
// up) are served side by side on two ports of their own, and pgbench runs a read's SQL against both at once,
// one client each, round after round. A round's growth is its 10 M p50 ÷ its 1 M p50, so both sizes meet the
// same seconds of the machine. Beside it, the shared buffers each read touches at each size (EXPLAIN ANALYZE
// BUFFERS of the call, its functions' statements included): a count the machine's noise does not move.
// Where a read grows past ×1.3, the report prints its plans at both sizes (auto_explain, nested statements too).
//   BENCH_ROUNDS (default 5) rounds of BENCH_SECONDS (default 5) seconds per read.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { localDir, profile, readConfig } from '../stack/config.ts';
import { info, step } from '../stack/log.ts';
import { livePostmaster } from '../stack/postmaster.ts';
import { localPassword, pgBinDir, postgresService, profileSettings, roleUrl } from '../stack/postgres.ts';
import { supervise } from '../stack/supervisor.ts';
import { endpoints } from './endpoints.ts';
import { findFixtures } from './fixtures.ts';
import { seededReader } from './growth.ts';
import { type Identity, identitySql } from './identity.ts';
import { explainNested, type PlanResult } from './plans.ts';
import { runPgbench } from './pgbench.ts';
import { median, ms, ratio } from './stats.ts';

/** The growth target of issue 21: a read at 10 M posts within ×1.3 of its cost at 1 M. */
const target = 1.3;

interface Size {
  label: string;
  dirName: string;
  url: string;
  authenticatorUrl: string;
  root: postgres.Sql;
  reader: Identity;
  sql: Map<string, string>;
}

interface Row {
  name: string;
  /** p50 ms of each round, per size. */
  small: number[];
  large: number[];
  buffers: { small: number; large: number };
}

function positive(name: string, fallback: number): number {
  const value = Number(Deno.env.get(name) || fallback);
  if (!(value > 0)) throw new Error(`${name} must be a positive number`);
  return value;
}

/** Serves a kept bench database on `port` (supervised: stopped with the rest at the end). */
async function serve(label: string, dirName: string, port: number, logDir: string): Promise<Size> {
  const bench = profile('bench', readConfig(), { keep: true, dirName });
  const dataDir = join(bench.dir, 'postgres');
  if (!existsSync(join(bench.dir, 'seed.json'))) {
    throw new Error(`no seeded database in ${bench.dir}: run bench:scale at that size first`);
  }
  if (livePostmaster(dataDir) !== undefined) {
    throw new Error(`a bench:scale stack is serving ${dataDir}: let it finish first`);
  }
  await supervise(
    postgresService({
      name: `postgres-${label}`,
      dataDir,
      port,
      socketDir: join(bench.dir, 'sizes-socket'),
      settings: profileSettings(bench),
    }, logDir),
  );
  const url = `postgresql://postgres:${localPassword}@127.0.0.1:${port}/postgres`;
  const root = postgres(url, { max: 1, onnotice: () => {} });
  const authenticatorUrl = roleUrl(url, 'authenticator');
  // The reader the scale benchmark measures as: driver01, with the session its last sign-in made.
  const reader = await seededReader(root, 'driver01');
  const authenticator = postgres(authenticatorUrl, { max: 1, prepare: false, onnotice: () => {} });
  try {
    const fixtures = await findFixtures(root, authenticator, { id: String(reader.claims.sub), identity: reader });
    const reads = endpoints(fixtures).filter((endpoint) => endpoint.kind === 'read');
    return {
      label,
      dirName,
      url,
      authenticatorUrl,
      root,
      reader,
      sql: new Map(reads.map((read) => [read.name, read.sql])),
    };
  } finally {
    await authenticator.end();
  }
}

/** The shared buffers one call touches as the reader (after a warm-up call), its functions' statements included. */
async function buffersOf(size: Size, sql: string): Promise<number> {
  return await size.root.begin(async (tx) => {
    await tx.unsafe(identitySql(size.reader));
    await tx.unsafe(sql);
    const [row] = await tx.unsafe(`explain (analyze, buffers, timing off, format json) ${sql}`);
    const plan = row['QUERY PLAN'][0].Plan;
    return plan['Shared Hit Blocks'] + plan['Shared Read Blocks'];
  });
}

function growth(row: Row): number {
  return median(row.small.map((small, i) => row.large[i] / small));
}

function markdown(rows: Row[], plans: Map<string, PlanResult[]>, header: string[]): string {
  const lines = ['# Each API read at 1 M and 10 M posts, side by side', '', ...header.map((line) => `- ${line}`), ''];
  lines.push(
    '| read | 1 M p50 ms | 10 M p50 ms | growth, each round | growth (median) | within ×1.3 | buffers 1 M | buffers 10 M | buffers growth |',
    '|---|---:|---:|---|---:|---|---:|---:|---:|',
  );
  for (const row of rows) {
    const rounds = row.small.map((small, i) => ratio(row.large[i], small)).join(', ');
    const g = growth(row);
    lines.push(
      `| ${row.name} | ${ms(median(row.small))} | ${ms(median(row.large))} | ${rounds} | ×${g.toFixed(2)} | ${
        g <= target ? 'yes' : '**no**'
      } | ` +
        `${row.buffers.small} | ${row.buffers.large} | ${ratio(row.buffers.large, row.buffers.small)} |`,
    );
  }
  for (const [name, [small, large]] of plans) {
    lines.push('', `## ${name}`);
    for (const [label, result] of [['1 M posts', small], ['10 M posts', large]] as const) {
      lines.push('', `### ${label}`, '', '```', ...result.plans.flatMap((plan) => [plan, '']), '```');
    }
  }
  return lines.join('\n') + '\n';
}

export async function sizesBench(): Promise<void> {
  const rounds = positive('BENCH_ROUNDS', 5);
  const seconds = positive('BENCH_SECONDS', 5);
  const bench = profile('bench', readConfig());
  const dir = join(localDir, 'bench-sizes');
  const logDir = join(dir, 'logs');
  await Deno.mkdir(logDir, { recursive: true });
  const scratch = await Deno.makeTempDir({ dir, prefix: 'scratch-' });
  // Ports of their own beside the bench stack's (which may be running), so both clusters serve at once.
  const small = await step('the 1 M bench database', () => serve('1m', 'bench', bench.ports.db + 20, logDir));
  const large = await step(
    'the 10 M bench database',
    () => serve('10m', 'bench-scale-10', bench.ports.db + 21, logDir),
  );
  try {
    const pgbench = join(pgBinDir(), 'pgbench');
    const names = [...small.sql.keys()].filter((name) => large.sql.has(name));
    const rows: Row[] = [];
    for (const name of names) {
      rows.push({
        name,
        small: [],
        large: [],
        buffers: {
          small: await buffersOf(small, small.sql.get(name)!),
          large: await buffersOf(large, large.sql.get(name)!),
        },
      });
    }
    for (let round = 1; round <= rounds; round++) {
      await step(`round ${round} of ${rounds}: every read at both sizes at once`, async () => {
        for (const row of rows) {
          const load = (size: Size) =>
            runPgbench(
              {
                url: size.authenticatorUrl,
                sql: size.sql.get(row.name)!,
                identities: [size.reader],
                clients: 1,
                seconds,
              },
              pgbench,
              scratch,
            );
          const [a, b] = await Promise.all([load(small), load(large)]);
          if (a.failed || b.failed) throw new Error(`${row.name}: ${a.failed ?? b.failed}`);
          row.small.push(a.p50);
          row.large.push(b.p50);
        }
      });
    }
    const plans = new Map<string, PlanResult[]>();
    for (const row of rows.filter((row) => growth(row) > target)) {
      const explain = (size: Size) =>
        explainNested(size.url, size.reader, [{ name: row.name, sql: size.sql.get(row.name)! }]);
      plans.set(row.name, [...await explain(small), ...await explain(large)]);
    }
    const header = [
      `finished: ${
        new Date().toISOString()
      }; ${rounds} rounds of ${seconds} s per read, pgbench with one client on each database at once`,
      `machine: ${navigator.hardwareConcurrency} cores, load average ${
        Deno.loadavg().map((l) => l.toFixed(2)).join(' ')
      } at the end`,
      `databases: .local/${small.dirName} (1 M posts) and .local/${large.dirName} (10 M posts)`,
    ];
    const text = markdown(rows, plans, header);
    console.log(`\n${text}`);
    const file = join(dir, `sizes-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    await Deno.writeTextFile(`${file}.md`, text);
    await Deno.writeTextFile(`${file}.json`, JSON.stringify({ header, rows }, null, 2));
    info(`wrote ${file}.md and .json`);
  } finally {
    await Promise.all([small.root.end(), large.root.end()]);
    await Deno.remove(scratch, { recursive: true });
  }
}
