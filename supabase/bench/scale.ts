// `npm run bench:scale`: the scale benchmark (docs/PERFORMANCE.md, "Scale benchmark"). Its own stack (profile `bench`,
// ports +2000, data in .local/bench), a social network seeded with SQL (100k users, 1M posts, 5M likes, 2M
// follows, 1M comments at BENCH_SCALE=1), then figures: the time of private.recount_counters(), each endpoint
// through the facade (wrk) and its SQL function alone (pgbench), set-based floors of the user-posts page and the feed,
// the facade through the pooler and on the read replica, the replica's lag under writes, and supabase-js-shaped
// queries as anon and as a signed-in user. Figures, not pass or fail.
//   --keep       reuse the seeded bench database of an earlier run (no reseeding)
//   --seed-only  seed, then stop (measure later with --keep)
import { join } from 'node:path';
import postgres from 'postgres';
import { profile, readConfig } from '../stack/config.ts';
import { info, step, warn } from '../stack/log.ts';
import { pgBinDir, queryValue, roleUrl } from '../stack/postgres.ts';
import { postgrestVersion } from '../stack/postgrest.ts';
import { type Stack, up } from '../stack/stack.ts';
import { type Driver, signUpDrivers } from './drivers.ts';
import { type Endpoint, endpoints, literal, userPostsSql } from './endpoints.ts';
import { applyReaderFixtures, findFixtures, type Fixtures } from './fixtures.ts';
import { feedFloorSql, type FloorCase, userPostsFloorSql } from './floor.ts';
import { anonIdentity, type Identity, identitySql } from './identity.ts';
import { measureTriggerCost, notifyingTriggers, writeLimitTriggers } from './trigger-cost.ts';
import { runPgbench, runPgbenchPair } from './pgbench.ts';
import { type EndpointResult, type FloorResult, markdown, type Report, type RestResult } from './report.ts';
import { tableQueries, timeQuery } from './queries.ts';
import { measurePoolerAndReplica } from './replication.ts';
import { measureFacadeCost } from './facade-cost.ts';
import { measureGrowth } from './growth.ts';
import { explainNested } from './plans.ts';
import { type RestCase, restCases } from './rest.ts';
import { seed } from './seed.ts';
import {
  benchDirName,
  holdsSeededNetwork,
  readSeedRecord,
  replicaByDefault,
  type SeedRecord,
  seedRecordFile,
} from './kept.ts';
import { raiseLimits } from './limits.ts';
import { startHeader } from './start-header.ts';
import { seconds } from './stats.ts';
import { ensureWrkInstalled, runWrk } from './wrk.ts';

/** The reads whose plans the report prints: those that walk posts by time or fetch every match. */
const planReads = [
  'GET /feed (reader following 1,000)',
  'GET /feed?limit=100',
  'GET /search posts ("celebrity": 25k matches)',
  'GET /:username/posts page 1',
];

/** The reads whose facade cost is measured against pgbench, and through the pooler and on the replica. */
const facadeCostReads = ['GET /post/:id', 'GET /:username/posts page 1', 'GET /feed (reader following 1,000)'];

interface Settings {
  keep: boolean;
  /** Stop once the database is seeded (a long seed on its own; measure later with --keep). */
  seedOnly: boolean;
  scale: number;
  /** Length of each load run. */
  seconds: number;
  recountCapSeconds: number;
  drivers: number;
  /** Whether the bench stack runs its read replica (and the pooler and replica step runs). */
  replica: boolean;
}

function settings(args: string[]): Settings {
  const number = (name: string, fallback: number) => {
    const value = Number((Deno.env.get(name) || String(fallback)).replace(/s$/, ''));
    if (!(value > 0)) throw new Error(`${name} must be a positive number`);
    return value;
  };
  const unknown = args.filter((arg) => !['--keep', '--seed-only'].includes(arg));
  if (unknown.length) throw new Error(`unknown option ${unknown[0]}: the options are --keep and --seed-only`);
  const scale = number('BENCH_SCALE', 1);
  const replica = Deno.env.get('BENCH_REPLICA');
  if (replica && !['on', 'off'].includes(replica)) throw new Error('BENCH_REPLICA must be on or off');
  return {
    keep: args.includes('--keep'),
    seedOnly: args.includes('--seed-only'),
    scale,
    replica: replica ? replica === 'on' : replicaByDefault(scale),
    seconds: number('BENCH_SECONDS', 5),
    recountCapSeconds: number('BENCH_RECOUNT_CAP', 300),
    drivers: Math.max(2, Math.round(number('BENCH_DRIVERS', 16))), // the reader and at least one writer
  };
}

async function seedOrKeep(stack: Stack, dir: string, s: Settings, logDir: string): Promise<SeedRecord> {
  const recordFile = seedRecordFile(dir);
  const seeded = await holdsSeededNetwork(stack);
  const kept = await readSeedRecord(dir);
  if (s.keep && seeded && kept) {
    info(`--keep: reusing the database seeded at scale ${kept.scale} on ${kept.at}`);
    if (Deno.env.get('BENCH_SCALE') && kept.scale !== s.scale) {
      warn(`BENCH_SCALE=${s.scale} is ignored: the kept database is at scale ${kept.scale}`);
    }
    return kept;
  }
  if (seeded) throw new Error(`the kept bench database was not seeded to the end: run without --keep to start afresh`);
  if (s.keep) info('--keep: no seeded bench database yet, seeding one');
  const record: SeedRecord = { scale: s.scale, at: new Date().toISOString(), steps: [] };
  await step(`seed at scale ${s.scale}`, () =>
    seed(stack.superuserUrl, s.scale, logDir, (done) => {
      info(`${done.step}: ${done.rows} in ${done.seconds.toFixed(1)} s`);
      record.steps.push(done);
    }));
  await Deno.writeTextFile(recordFile, JSON.stringify(record, null, 2));
  return record;
}

async function timeRecount(root: postgres.Sql, capSeconds: number): Promise<string> {
  const begin = performance.now();
  try {
    const [{ fixed }] = await root.begin(async (tx) => {
      await tx.unsafe(`set local statement_timeout = '${capSeconds}s'`);
      return tx`select private.recount_counters() as fixed`;
    });
    return `${seconds(begin).toFixed(1)} s (${fixed} rows fixed)`;
  } catch (error) {
    if ((error as { code?: string }).code === '57014') return `> ${capSeconds} s (cut off by BENCH_RECOUNT_CAP)`;
    throw error;
  }
}

/** One request through the gateway before the load: warms the path up and says when it does not answer 2xx. */
async function probe(base: string, endpoint: Endpoint, token: string): Promise<string | undefined> {
  const response = await fetch(base + endpoint.path, {
    method: endpoint.method,
    headers: { Authorization: `Bearer ${token}`, ...(endpoint.body ? { 'Content-Type': 'application/json' } : {}) },
    body: endpoint.body ? JSON.stringify(endpoint.body) : undefined,
  });
  const text = await response.text();
  return response.ok ? undefined : `probe answered ${response.status} ${text.slice(0, 120)}`;
}

interface Context {
  stack: Stack;
  s: Settings;
  authenticatorUrl: string;
  pgbench: string;
  scratch: string;
  reader: Driver;
  /** The other drivers: the reader writes nothing, so its feed and lists stay as seeded, run after run. */
  writers: Driver[];
}

async function measureEndpoint(c: Context, endpoint: Endpoint): Promise<EndpointResult> {
  const callers = endpoint.kind === 'read' ? [c.reader] : c.writers;
  const tokens = callers.map((d) => d.accessToken);
  const identities = callers.map((d) => d.identity);
  const note = await probe(`${c.stack.urls.functions}/api`, endpoint, c.reader.accessToken);
  const http = (connections: number) =>
    runWrk({
      url: `${c.stack.urls.functions}/api${endpoint.path}`,
      method: endpoint.method,
      body: endpoint.body,
      tokens,
      connections,
      seconds: c.s.seconds,
    }, c.scratch);
  const sql = (clients: number) =>
    runPgbench(
      { url: c.authenticatorUrl, sql: endpoint.sql, identities, clients, seconds: c.s.seconds },
      c.pgbench,
      c.scratch,
    );
  const result = {
    name: endpoint.name,
    facade1: await http(1),
    facade16: await http(16),
    sql1: await sql(1),
    sql16: await sql(16),
    note,
  };
  info(
    `${endpoint.name}: facade ${result.facade1.perSecond.toFixed(0)}/${result.facade16.perSecond.toFixed(0)} req/s, ` +
      `pgbench ${result.sql1.perSecond.toFixed(0)}/${result.sql16.perSecond.toFixed(0)} tps (1/16 connections)`,
  );
  return result;
}

/** One read through PostgREST (wrk through the gateway's /rest/v1) and PostgREST's SQL for it alone (pgbench). */
async function measureRest(c: Context, one: RestCase): Promise<RestResult> {
  const anonKey = c.stack.keys.anonKey;
  const token = one.caller === 'anon' ? anonKey : c.reader.accessToken;
  const identity = one.caller === 'anon' ? anonIdentity : c.reader.identity;
  const url = `${c.stack.urls.rest}${one.path}`;
  const response = await fetch(url, {
    method: one.method,
    headers: { apikey: anonKey, Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: one.body ? JSON.stringify(one.body) : undefined,
  });
  const text = await response.text();
  const note = response.ok ? undefined : `probe answered ${response.status} ${text.slice(0, 120)}`;
  const http = (connections: number) =>
    runWrk({
      url,
      method: one.method,
      body: one.body,
      tokens: [token],
      headers: { apikey: anonKey },
      connections,
      seconds: c.s.seconds,
    }, c.scratch);
  const sql = (clients: number) =>
    runPgbench(
      { url: c.authenticatorUrl, sql: one.sql, identities: [identity], clients, seconds: c.s.seconds },
      c.pgbench,
      c.scratch,
    );
  const result = {
    name: one.name,
    rest1: await http(1),
    rest16: await http(16),
    sql1: await sql(1),
    sql16: await sql(16),
    note,
  };
  info(
    `${one.name}: PostgREST ${result.rest1.perSecond.toFixed(0)}/${result.rest16.perSecond.toFixed(0)} req/s, ` +
      `pgbench ${result.sql1.perSecond.toFixed(0)}/${result.sql16.perSecond.toFixed(0)} tps (1/16 connections)`,
  );
  return result;
}

/** Stored counts against the rows, after the concurrent writes. */
async function checkCounters(root: postgres.Sql, f: Fixtures): Promise<string[]> {
  const [row] = await root`
    select
      (select likes_count from public.posts where id = ${f.likedPostId}) as likes_stored,
      (select count(*)::int from public.post_likes where post_id = ${f.likedPostId}) as likes_rows,
      (select comments_count from public.posts where id = ${f.commentedPostId}) as comments_stored,
      (select count(*)::int from public.comments where post_id = ${f.commentedPostId}) as comments_rows,
      (select followers_count from public.profiles where username = 'follow_target') as followers_stored,
      (select count(*)::int from public.follows f join public.profiles p on p.id = f.followee_id
       where p.username = 'follow_target' and f.status = 'accepted') as followers_rows`;
  const line = (what: string, stored: number, rows: number) =>
    `${what}: stored ${stored}, rows ${rows}: ${stored === rows ? 'exact' : '**NOT EXACT**'}`;
  return [
    line('likes_count of the toggled post', row.likes_stored, row.likes_rows),
    line('comments_count of the commented post', row.comments_stored, row.comments_rows),
    line('followers_count of the followed account', row.followers_stored, row.followers_rows),
  ];
}

/** The pages measured against their floors: the celebrity's posts (page 1 and the deep page), the reader's feed. */
function floorCases(f: Fixtures, feedAuthors: string[], feedPage2Cursor: string): FloorCase[] {
  return [
    { name: 'user_posts, page 1', api: userPostsSql('celebrity'), floor: userPostsFloorSql(f.celebrityId) },
    {
      name: `user_posts, page ${f.deepPage}`,
      api: userPostsSql('celebrity', f.deepCursor),
      floor: userPostsFloorSql(f.celebrityId, f.deepCursor),
    },
    { name: 'feed, page 1', api: 'select public.feed()', floor: feedFloorSql(feedAuthors, 20) },
    {
      name: 'feed, page 2',
      api: `select public.feed(p_cursor => ${literal(feedPage2Cursor)})`,
      floor: feedFloorSql(feedAuthors, 20, feedPage2Cursor),
    },
    { name: 'feed, page 1 of 100', api: 'select public.feed(p_limit => 100)', floor: feedFloorSql(feedAuthors, 100) },
  ];
}

/** Each API function against its floor, one client (the per-row cost is the question); and whether their JSON is the same. */
async function measureFloors(
  c: Context,
  root: postgres.Sql,
  authenticator: postgres.Sql,
  f: Fixtures,
): Promise<{ rows: FloorResult[]; sameJson: boolean }> {
  const asReader: Identity = { role: 'service_role', claims: c.reader.identity.claims };
  const answer = (identity: Identity, sql: string) =>
    authenticator.begin(async (tx) => {
      await tx.unsafe(identitySql(identity));
      const [row] = await tx.unsafe(sql);
      return JSON.stringify(Object.values(row)[0]);
    });
  const feedPage1 = JSON.parse(await answer(c.reader.identity, 'select public.feed()'));
  const followees = await root`
    select f.followee_id as id from public.follows f where f.follower_id = ${c.reader.id} and f.status = 'accepted'`;
  const cases = floorCases(f, [c.reader.id, ...followees.map((row) => row.id as string)], feedPage1.next_cursor);
  let sameJson = true;
  for (const one of cases) sameJson &&= await answer(c.reader.identity, one.api) === await answer(asReader, one.floor);
  // Side by side in one run, a client each: what the machine's neighbours do meets both alike.
  const load = (sql: string, identity: Identity) => ({
    url: c.authenticatorUrl,
    sql,
    identities: [identity],
    clients: 1,
    seconds: c.s.seconds,
  });
  const rows: FloorResult[] = [];
  for (const one of cases) {
    const [api, floor] = await runPgbenchPair(
      load(one.api, c.reader.identity),
      load(one.floor, asReader),
      c.pgbench,
      c.scratch,
    );
    rows.push({ page: one.name, api, floor });
  }
  return { rows, sameJson };
}

async function runHeader(s: Settings, record: SeedRecord, stack: Stack, dataDir: string): Promise<string[]> {
  const postgresInfo = await queryValue(
    stack.superuserUrl,
    `select current_setting('server_version') || ', shared_buffers ' || current_setting('shared_buffers')`,
  );
  return [
    `scale: ${record.scale} (BENCH_SCALE), seeded ${record.at}; ${s.seconds} s per load run (BENCH_SECONDS); ${s.drivers} driver accounts`,
    `PostgreSQL ${postgresInfo}; the facade's pool: 8 connections (DB_POOL_MAX default)`,
    `load: wrk (facade, through the gateway ${stack.urls.functions}/api, with real access tokens; supabase-js reads through ` +
    `${stack.urls.rest}), pgbench (the SQL as authenticator with role, claims and statement_timeout set per transaction as PostgREST does)`,
    `PostgREST ${postgrestVersion} (${stack.postgrest})`,
    `data: ${dataDir}`,
  ];
}

export async function scaleBench(args: string[]): Promise<void> {
  const s = settings(args);
  const started = await startHeader();
  const bench = profile('bench', readConfig(), {
    keep: s.keep,
    replica: s.replica,
    dirName: benchDirName(s.scale),
  });
  const stack = await up(bench);
  if (stack.authUnavailable) {
    throw new Error(`the scale benchmark needs Supabase Auth for its drivers: ${stack.authUnavailable}`);
  }
  const logDir = join(bench.dir, 'logs');
  info(`bench data lives in ${bench.dir} (Postgres cluster, logs, reports); ${s.keep ? 'kept' : 'fresh'} database`);
  await ensureWrkInstalled(logDir);
  const record = await seedOrKeep(stack, bench.dir, s, logDir);
  if (s.seedOnly) return;
  const root = postgres(stack.superuserUrl, { max: 2, onnotice: () => {} });
  const authenticatorUrl = roleUrl(stack.superuserUrl, 'authenticator');
  const authenticator = postgres(authenticatorUrl, { max: 1, prepare: false, onnotice: () => {} });
  const scratch = await Deno.makeTempDir({ dir: bench.dir, prefix: 'scratch-' });
  let restoreLimits: (() => Promise<void>) | undefined;
  try {
    const drivers = await step(
      `${s.drivers} drivers sign up and in through Supabase Auth`,
      () => signUpDrivers(stack, s.drivers),
    );
    const reader = drivers[0];
    await applyReaderFixtures(root, reader, record.scale);
    // The drivers write thousands of times a minute: the write limits are raised out of their reach (every write
    // is still counted, none refused) until the end of the run.
    restoreLimits = await raiseLimits(root);
    const recount = await step('select private.recount_counters()', () => timeRecount(root, s.recountCapSeconds));
    info(`recount_counters: ${recount}`);
    const fixtures = await findFixtures(root, authenticator, reader);
    const c: Context = {
      stack,
      s,
      authenticatorUrl,
      pgbench: join(pgBinDir(), 'pgbench'),
      scratch,
      reader,
      writers: drivers.slice(1),
    };
    const results: EndpointResult[] = [];
    // Three times: the ratio of the user-posts page to its floor must hold run after run.
    const floorRuns: Array<{ rows: FloorResult[]; sameJson: boolean }> = [];
    for (const run of [1, 2, 3]) {
      floorRuns.push(
        await step(
          `set-based floors of the user-posts page and the feed (run ${run} of 3)`,
          () => measureFloors(c, root, authenticator, fixtures),
        ),
      );
    }
    const growth = await step(
      'growth targets: the feed of 5,000 sparse followees and of a 100,000-post account, deleting an account',
      () =>
        measureGrowth(
          root,
          (identity) =>
            runPgbench(
              {
                url: c.authenticatorUrl,
                sql: 'select public.feed()',
                identities: [identity],
                clients: 1,
                seconds: s.seconds,
              },
              c.pgbench,
              c.scratch,
            ),
        ),
    );
    const facadeCost = await step("the facade's own cost at 8 and 64 connections", () =>
      measureFacadeCost(
        {
          functionsUrl: stack.urls.functions,
          functionsDirectUrl: stack.urls.functionsDirect,
          authenticatorUrl,
          authenticator,
          poolerUrl: stack.poolerUrl && roleUrl(stack.poolerUrl, 'authenticator'),
          reader,
          pgbench: c.pgbench,
          scratch,
          seconds: s.seconds,
        },
        endpoints(fixtures).filter((endpoint) => facadeCostReads.includes(endpoint.name)),
      ));
    await step('endpoints: facade and SQL function', async () => {
      for (const endpoint of endpoints(fixtures)) results.push(await measureEndpoint(c, endpoint));
    });
    const rest = await step('supabase-js through PostgREST, and the facade beside it on get_post', async () => {
      const rows: RestResult[] = [];
      for (const one of restCases(fixtures)) rows.push(await measureRest(c, one));
      // Right after rpc('get_post'), the same work through the facade, so the two share the machine's state; then
      // both again straight to their ports, which tells the gateway's share.
      const facade = await measureEndpoint(c, endpoints(fixtures)[0]);
      const token = [c.reader.accessToken];
      const direct = (url: string, method: 'GET' | 'POST', body?: unknown) => async (connections: number) =>
        await runWrk({
          url,
          method,
          body,
          tokens: token,
          headers: { apikey: c.stack.keys.anonKey },
          connections,
          seconds: c.s.seconds,
        }, c.scratch);
      const facadeDirect = direct(`${c.stack.urls.functionsDirect}/api/post/${fixtures.likedPostId}`, 'GET');
      const restDirect = direct(`${c.stack.urls.restDirect}/rpc/get_post`, 'POST', { p_post_id: fixtures.likedPostId });
      const straight = {
        facade1: await facadeDirect(1),
        facade16: await facadeDirect(16),
        rest1: await restDirect(1),
        rest16: await restDirect(16),
      };
      return { rows, facadeGetPost: facade, straight };
    });
    const poolerReplica = !s.replica ? undefined : await step('the pooler and the read replica', () => {
      const all = endpoints(fixtures);
      const reads = all.filter((endpoint) => facadeCostReads.includes(endpoint.name));
      return measurePoolerAndReplica(
        {
          stack,
          profile: bench,
          logDir,
          scratch,
          seconds: s.seconds,
          reader,
          writers: c.writers,
          pgbench: c.pgbench,
          authenticatorUrl,
        },
        reads,
        all.filter((endpoint) => endpoint.kind === 'write'),
      );
    });
    const counters = await checkCounters(root, fixtures);
    const writes = endpoints(fixtures).filter((endpoint) => endpoint.kind === 'write');
    const writeLoad = (endpoint: Endpoint, clients: number) =>
      runPgbench(
        {
          url: c.authenticatorUrl,
          sql: endpoint.sql,
          identities: c.writers.map((d) => d.identity),
          clients,
          seconds: s.seconds,
        },
        c.pgbench,
        c.scratch,
      );
    const notificationCost = await step(
      'the write paths with and without their notification triggers',
      () => measureTriggerCost(root, notifyingTriggers, writes, [1, 16], writeLoad),
    );
    const writeLimitCost = await step(
      'the write paths with and without counting against the write limits',
      () => measureTriggerCost(root, writeLimitTriggers, writes, [1, 16], writeLoad),
    );
    const queries = await step('supabase-js-shaped queries', async () => {
      const rows = [];
      for (const query of tableQueries(fixtures)) {
        rows.push({
          name: query.name,
          anon: await timeQuery(authenticator, anonIdentity, query.sql, 5),
          authenticated: await timeQuery(authenticator, reader.identity, query.sql, 5),
        });
      }
      return rows;
    });
    const plans = await step(
      'the plans of the reads that grow with the tables',
      () =>
        explainNested(
          stack.superuserUrl,
          reader.identity,
          endpoints(fixtures).filter((endpoint) => planReads.includes(endpoint.name)),
        ),
    );
    const report: Report = {
      header: [...started, `finished: ${new Date().toISOString()}`, ...await runHeader(s, record, stack, bench.dir)],
      seed: record.steps,
      seedNote: s.keep ? `Seed times of the seeding run (${record.at}); this run kept its database.` : undefined,
      recount,
      fixtures: { ...fixtures.sizes, 'deep page': fixtures.deepPage },
      endpoints: results,
      rest: rest.rows,
      facadeGetPost: rest.facadeGetPost,
      getPostStraight: rest.straight,
      poolerReplica,
      counters,
      notificationCost,
      writeLimitCost,
      floorRuns: floorRuns.map((run) => run.rows),
      floorSameJson: floorRuns.every((run) => run.sameJson),
      queries,
      growth,
      facadeCost,
      plans,
    };
    const text = markdown(report);
    console.log(`\n${text}`);
    // The figures as JSON too, for `bench:compare` (one scale beside another).
    const file = join(bench.dir, `scale-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    await Deno.writeTextFile(`${file}.md`, text);
    await Deno.writeTextFile(`${file}.json`, JSON.stringify({ scale: record.scale, ...report }, null, 2));
    info(`wrote ${file}.md and .json`);
  } finally {
    await restoreLimits?.();
    await Promise.all([root.end(), authenticator.end()]);
    await Deno.remove(scratch, { recursive: true });
  }
}
