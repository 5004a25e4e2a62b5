// `npm run bench:soak`: an hour of a social app's traffic on the kept bench database (docs/PERFORMANCE.md,
// "Soak"; issue 42). The bench stack of `bench:scale` (profile `bench`, ports +2000) on the database a seeding
// run left in .local/bench-scale-<scale>, with its replica and pooler; load accounts (soak01…) sign up and
// follow part of the crowd, then as many clients as accounts send the mix of soak-mix.ts through the facade,
// PostgREST and Auth at once, while the function's memory, the hot tables, the replica's lag and the pooler
// are sampled. The report checks the issue's goals per operation and per window.
//   BENCH_SCALE                the kept database to run on (default 10: the 10 M-post one)
//   BENCH_SOAK_MINUTES         how long (default 60)
//   BENCH_SOAK_WINDOW_MINUTES  the report's window (default 5)
//   BENCH_SOAK_CLIENTS         concurrent clients, each its own account (default 16)
//   BENCH_SOAK_RATE            operations per second for all clients together (default 0: as fast as answered)
//   BENCH_REPLICA              off: no replica (the facade reads the primary through the pooler), where the disk
//                              cannot hold a second copy of the database (default on)
import { join } from 'node:path';
import postgres from 'postgres';
import { repoRoot } from '../stack/config.ts';
import { info, step, warn } from '../stack/log.ts';
import { queryValue } from '../stack/postgres.ts';
import type { Stack } from '../stack/stack.ts';
import { logPath } from '../stack/processes.ts';
import { pidOf } from '../stack/supervisor.ts';
import { type Driver, signOutEverywhere, signUpDrivers } from './drivers.ts';
import { upKeptBench } from './kept.ts';
import { raiseLimits } from './limits.ts';
import { mix, type Targets } from './soak-mix.ts';
import { client, Recorder, runLoad, warmUp } from './soak-load.ts';
import { soakMarkdown } from './soak-report.ts';
import { hotTables, sample } from './soak-samples.ts';
import { startHeader } from './start-header.ts';

interface Settings {
  scale: number;
  minutes: number;
  windowMinutes: number;
  clients: number;
  rate: number;
  replica: boolean;
}

function settings(args: string[]): Settings {
  if (args.length) throw new Error(`bench:soak takes no arguments (${args[0]}): its settings are BENCH_* variables`);
  const number = (name: string, fallback: number, zero = false) => {
    const value = Number(Deno.env.get(name) || String(fallback));
    if (!(value > 0 || (zero && value === 0))) throw new Error(`${name} must be a positive number`);
    return value;
  };
  const s = {
    scale: number('BENCH_SCALE', 10),
    minutes: number('BENCH_SOAK_MINUTES', 60),
    windowMinutes: number('BENCH_SOAK_WINDOW_MINUTES', 5),
    clients: Math.round(number('BENCH_SOAK_CLIENTS', 16)),
    rate: number('BENCH_SOAK_RATE', 0, true),
    replica: Deno.env.get('BENCH_REPLICA') !== 'off',
  };
  if (!['on', 'off', undefined].includes(Deno.env.get('BENCH_REPLICA'))) {
    throw new Error('BENCH_REPLICA must be on or off');
  }
  if (s.windowMinutes > s.minutes) throw new Error('BENCH_SOAK_WINDOW_MINUTES is longer than BENCH_SOAK_MINUTES');
  if (s.clients < 2) throw new Error('BENCH_SOAK_CLIENTS must be at least 2 (the accounts follow one another)');
  return s;
}

/**
 * Each load account follows its share of the crowd (as many as the reader of bench:scale, a fifth of them:
 * 200 at full size) and the celebrity, so its feed is a real one. Through the triggers, so every counter stays
 * exact; idempotent, so a second soak finds them in place.
 */
async function followCrowd(root: postgres.Sql, users: Driver[], scale: number): Promise<void> {
  const follows = Math.max(10, Math.round(200 * Math.min(1, scale)));
  const crowd = Math.max(1000, Math.round(100000 * scale)) - 10;
  for (const [i, user] of users.entries()) {
    await root`
      insert into public.follows (follower_id, followee_id)
      select ${user.id}::uuid, p.id from generate_series(0, ${follows - 1}::int) k
      join public.profiles p on p.username = 'u' || (11 + (${i * 7919}::int + k * 37) % ${crowd}::int)
      union all
      select ${user.id}::uuid, p.id from public.profiles p where p.username = 'celebrity'
      on conflict do nothing`;
    // Requests to private accounts, accepted as their owners would.
    await root`update public.follows set status = 'accepted' where follower_id = ${user.id} and status = 'pending'`;
  }
  await root`analyze public.follows`;
}

/** Public posts of public crowd accounts, and those accounts: a few thousand of each, drawn at random. */
async function findTargets(root: postgres.Sql, users: Driver[]): Promise<Targets> {
  // About 50,000 rows' worth of pages drawn at random, not a scan of all 10 M.
  const [{ percent }] = await root`
    select least(100, 100 * 50000 / greatest(reltuples, 1))::float8 as percent from pg_class where oid = 'public.posts'::regclass`;
  const posts = (sample: string, where: string) =>
    root`
      select p.id, p.author_id as "authorId", a.username as author
      from public.posts p ${root.unsafe(sample)} join public.profiles a on a.id = p.author_id
      where p.privacy = 'public' and p.banned_at is null and not a.is_private and a.banned_at is null
        and ${root.unsafe(where)}
      order by random() limit 5000`;
  const crowdPosts = await posts(`tablesample system (${percent})`, `a.username ~ '^u[0-9]+$'`);
  const hotPosts = await posts('', `a.username in ('celebrity', 'hot_author')`);
  const follows = await root`
    select f.follower_id as id, array_agg(p.username) as usernames
    from public.follows f join public.profiles p on p.id = f.followee_id
    where f.follower_id = any(${users.map((user) => user.id)}::uuid[]) group by f.follower_id`;
  const followees = new Map(follows.map((row) => [row.id as string, row.usernames as string[]]));
  return {
    posts: crowdPosts.map((row) => ({ ...row }) as Targets['posts'][number]),
    usernames: [...new Set(crowdPosts.map((row) => row.author as string))],
    hotPosts: hotPosts.map((row) => ({ ...row }) as Targets['posts'][number]),
    hotUsernames: ['celebrity', 'hot_author', 'diarist'],
    loadUsernames: users.map((user) => user.username),
    following: new Map(users.map((user) => [user.username, new Set(followees.get(user.id) ?? [])])),
  };
}

/** What the load accounts left behind (each write is undone, so little), and the hot tables' rows. */
async function leftovers(root: postgres.Sql, users: Driver[]): Promise<Record<string, number>> {
  const ids = users.map((user) => user.id);
  const [row] = await root`
    select
      (select count(*) from public.posts where author_id = any(${ids}::uuid[]))::int as posts,
      (select count(*) from public.comments where author_id = any(${ids}::uuid[]))::int as comments,
      (select count(*) from public.post_likes where user_id = any(${ids}::uuid[]))::int as likes,
      (select count(*) from public.follows where follower_id = any(${ids}::uuid[]))::int as follows,
      (select count(*) from public.notifications)::int as notifications,
      (select count(*) from auth.sessions where user_id = any(${ids}::uuid[]))::int as sessions`;
  return row;
}

async function header(s: Settings, stack: Stack, dataDir: string, seededAt: string): Promise<string[]> {
  const postgresInfo = await queryValue(
    stack.superuserUrl,
    `select current_setting('server_version') || ', shared_buffers ' || current_setting('shared_buffers') ||
      ', autovacuum_naptime ' || current_setting('autovacuum_naptime') || ', autovacuum_vacuum_scale_factor ' ||
      current_setting('autovacuum_vacuum_scale_factor')`,
  );
  const total = mix.reduce((sum, op) => sum + op.weight, 0);
  return [
    `command: BENCH_SCALE=${s.scale} BENCH_SOAK_MINUTES=${s.minutes} BENCH_SOAK_WINDOW_MINUTES=${s.windowMinutes} ` +
    `BENCH_SOAK_CLIENTS=${s.clients}${s.rate ? ` BENCH_SOAK_RATE=${s.rate}` : ''}${
      s.replica ? '' : ' BENCH_REPLICA=off'
    } npm run bench:soak`,
    `database: scale ${s.scale}, seeded ${seededAt} (${dataDir}); PostgreSQL ${postgresInfo}`,
    `load: ${s.clients} clients in one Deno process (fetch), each its own account, ` +
    `${s.rate ? `paced to ${s.rate} operations/s in all` : 'each sending its next operation as soon as answered'}; ` +
    `through the gateway ${stack.urls.api} (facade /functions/v1/api, ${
      s.replica ? 'reading from the replica' : 'with no replica, reading from the primary'
    } through PgBouncer; ` +
    "PostgREST /rest/v1 with the anon key and the account's token; Auth /auth/v1)",
    `mix (per 100 operations drawn; a write is undone right after, so it is two requests): ${
      mix.map((op) => `${op.name} ${(op.weight / total * 100).toFixed(1)}`).join(', ')
    }`,
    "the write limits and request limits are raised out of the load accounts' reach for the run; Auth's per-address " +
    'limits are lifted on the bench stack (supabase/stack/stack.ts)',
  ];
}

export async function soakBench(args: string[]): Promise<void> {
  const s = settings(args);
  const started = await startHeader();
  // The replica is part of what the soak watches: made from the kept database the first time (a copy of it).
  // V8 traces each collection of the function's heap into its log, where the sampler reads them.
  const { stack, bench, record } = await upKeptBench(s.scale, { replica: s.replica, facadeV8Flags: ['--trace-gc'] });
  if (!stack.poolerUrl) throw new Error('the soak needs the pooler');
  if (s.replica && !stack.replicaUrl) throw new Error('the soak needs the replica (or BENCH_REPLICA=off)');
  const root = postgres(stack.superuserUrl, { max: 2, onnotice: () => {} });
  let restoreLimits: (() => Promise<void>) | undefined;
  try {
    const users = await step(
      `${s.clients} load accounts sign up and in through Supabase Auth`,
      () => signUpDrivers(stack, s.clients, 'soak'),
    );
    await step('the load accounts follow part of the crowd', () => followCrowd(root, users, s.scale));
    restoreLimits = await raiseLimits(root);
    const targets = await step('public posts and accounts to read and write on', () => findTargets(root, users));
    const at = {
      functions: stack.urls.functions,
      rest: stack.urls.rest,
      auth: stack.urls.auth,
      anonKey: stack.keys.anonKey,
    };
    const warm = new Recorder(performance.now(), Infinity, 1);
    const failing = await step('each operation once', () => warmUp(client(users[0], at, warm), targets, warm));
    for (const line of failing) warn(`warm-up: ${line}`);
    const before = await leftovers(root, users);
    const windowMs = s.windowMinutes * 60_000;
    const durationMs = s.minutes * 60_000;
    const startedAt = performance.now();
    const recorder = new Recorder(startedAt, windowMs, Math.ceil(durationMs / windowMs));
    info(
      `soak: ${s.minutes} min, ${s.clients} clients, windows of ${s.windowMinutes} min; ends at ` +
        new Date(Date.now() + durationMs).toISOString(),
    );
    const load = runLoad(users.map((user) => client(user, at, recorder)), targets, {
      until: startedAt + durationMs,
      rate: s.rate,
    });
    const samples = await sample(
      {
        primaryUrl: stack.superuserUrl,
        poolerUrl: stack.poolerUrl,
        functionPid: () => pidOf('functions'),
        functionLog: logPath(join(bench.dir, 'logs'), 'functions'),
      },
      startedAt,
      load,
    );
    await load;
    const after = await leftovers(root, users);
    await Promise.all(users.map((user) => signOutEverywhere(stack, user)));
    const text = soakMarkdown({
      title: `Soak: ${s.minutes} min at scale ${s.scale}, ${s.clients} clients`,
      header: [...started, `finished: ${new Date().toISOString()}`, ...await header(s, stack, bench.dir, record.at)],
      recorder,
      samples,
      windowMs,
      durationMs,
      maxLagMs: Number(Deno.env.get('DB_REPLICA_MAX_LAG_MS') || 2000),
      leftovers: [
        `rows of the load accounts before → after the run: ${
          Object.keys(before).filter((key) => key !== 'notifications').map((key) =>
            `${key} ${before[key]} → ${after[key]}`
          ).join(', ')
        }; every notification in the database: ${before.notifications} → ${after.notifications}`,
        `hot tables sampled: ${hotTables.join(', ')}`,
      ],
    });
    console.log(`\n${text}`);
    const file = join(
      repoRoot,
      'supabase',
      'bench',
      'reports',
      `soak-${s.minutes}min-scale-${s.scale}-${new Date().toISOString().replace(/[:.]/g, '-')}.md`,
    );
    await Deno.writeTextFile(file, text);
    info(`wrote ${file}`);
  } finally {
    await restoreLimits?.();
    await root.end();
  }
}
