// `npm run bench:writes`: how writes scale (issue 55; docs/PERFORMANCE.md, "What breaks first as traffic grows").
// On a fresh test stack (its ports; STACK_TEST_PORT_SHIFT moves them), or with --keep on the seeded network of a
// kept bench database (the stack of `bench:scale`, ports +2000), signed-in callers toggle post likes, comment
// likes and follows and write comments, at 16 and 64 callers, on one hot target (everyone likes or comments the
// same post, likes the same comment, follows the same account) and on spread targets (each caller its own post,
// comment and account: write-targets.ts), through
// the facade (the gateway, wrk), PostgREST's rpc() (wrk) and pgbench of the same SQL function as each caller. Every
// target belongs to someone else, so each like and follow notifies its author, hot or spread. Then the post like
// with and without the write's announcement (private.note_write, the bump of the caller's write count that the
// facade and PostgREST make with every write), side by side in one pgbench run. Prints rates, p50, p99, the
// primary's CPU per write and the ratios the issue asks for: a hot target against spread ones, the facade against
// pgbench, the writes with their announcement against the same writes without; then the post like through the
// facade and pgbench again with Postgres alone on one core (cpu.ts, onCoresApart). Last, reports of one post by many
// accounts at once against reports of a post each (report-bursts.ts; BENCH_REPORT_ROUNDS rounds, default 8).
//   --keep         run on the kept bench database of BENCH_SCALE (default 1: 1 M posts), seeded beforehand by
//                  `bench:scale --seed-only`
//   --long         instead, BENCH_ROUNDS rounds (default 10) of post likes and comments by 16 callers through
//                  pgbench, on the hot post then on spread ones: whether a target that stays hot gets slower
//                  (long-burst.ts)
//   BENCH_SECONDS (default 10) per run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { profile, readConfig } from '../stack/config.ts';
import { info, step } from '../stack/log.ts';
import { pgBinDir, queryValue, roleUrl } from '../stack/postgres.ts';
import { type Stack, up } from '../stack/stack.ts';
import { type Driver, signUpDrivers } from './drivers.ts';
import { replicaByDefault, upKeptBench } from './kept.ts';
import { raiseLimits } from './limits.ts';
import type { Load } from './load.ts';
import { runPgbench, runPgbenchPair } from './pgbench.ts';
import { onCoresApart } from './cpu.ts';
import { withPrimaryCpu } from './primary-cpu.ts';
import { startHeader } from './start-header.ts';
import { ms, perSecond, ratio } from './stats.ts';
import { type Burst, burstDoors, reportBursts } from './report-bursts.ts';
import { type BurstKind, longBurst } from './long-burst.ts';
import {
  type Aim,
  createTargets,
  findSeededTargets,
  hotAndSpread,
  hotPendingRows,
  type Target,
  type Targets,
} from './write-targets.ts';
import { ensureWrkInstalled, runWrk } from './wrk.ts';

const callerCounts = [16, 64];
/** Rounds of reports at each number of callers, hot and spread, through each door (report-bursts.ts). */
const reportRounds = Math.max(2, Number(Deno.env.get('BENCH_REPORT_ROUNDS') || 8));
const doors = ['facade', 'PostgREST', 'pgbench'] as const;
type Door = typeof doors[number];

/** A kind of write: its facade path, its SQL function and argument, and the target of caller `i`. */
interface Kind {
  name: string;
  path: (target: string) => string;
  fn: string;
  arg: string;
  argType: 'uuid' | 'text';
  targetOf: (target: Target, i: number) => string;
  /** What the write sends besides its target: the facade's JSON body, and the same as the SQL function's arguments. */
  body?: { facade: Record<string, string>; sql: Record<string, string> };
}

interface Row {
  kind: string;
  callers: number;
  target: Target;
  door: Door;
  load: Load;
  cpuPerWrite: number;
}

export async function writesBench(args: string[]): Promise<void> {
  const unknown = args.filter((arg) => arg !== '--keep' && arg !== '--long');
  if (unknown.length) throw new Error(`unknown option ${unknown[0]}: the options are --keep and --long`);
  const keep = args.includes('--keep');
  const seconds = Math.max(4, Number(Deno.env.get('BENCH_SECONDS') || 10));
  const started = await startHeader();
  const { stack, dir, database } = keep ? await keptStack() : await testStack();
  await ensureWrkInstalled(join(dir, 'logs'));
  const root = postgres(stack.superuserUrl, { max: 1, onnotice: () => {} });
  const restore = await raiseLimits(root);
  const scratch = mkdtempSync(join(tmpdir(), 'writes-'));
  try {
    const most = Math.max(...callerCounts);
    // The callers; on the test stack also one more account, the last caller's spread target, and the star, who
    // owns the hot targets.
    const accounts = await step('callers', () => signUpDrivers(stack, keep ? most : most + 2, 'writer'));
    const aims = keep ? await findSeededTargets(root, most) : await createTargets(root, accounts.pop()!, accounts);
    const kinds = kindsOf(aims);
    if (args.includes('--long')) {
      const rounds = Math.max(1, Number(Deno.env.get('BENCH_ROUNDS') || 10));
      const warmUp = seconds / 2;
      const burstKinds: BurstKind[] = kinds.filter((kind) => kind.name === 'post like' || kind.name === 'comment')
        .map((kind) => ({
          name: kind.name,
          run: (target) => runDoor(stack, 'pgbench', kind, target, accounts.slice(0, 16), seconds, warmUp, scratch),
        }));
      const table = await step(
        'long burst',
        () => longBurst(root, aims.hot.post, burstKinds, rounds, seconds + warmUp),
      );
      console.log(
        [...started, `finished: ${new Date().toISOString()}`, database, `${seconds} s per run`, ''].join('\n'),
      );
      console.log(table);
      return;
    }
    const rows: Row[] = [];
    for (const kind of kinds) {
      for (const callers of callerCounts) {
        for (const target of hotAndSpread) {
          const who = accounts.slice(0, callers);
          for (const door of doors) {
            const warmUp = warmUpOf(door, seconds);
            const { load, cpuPerWrite } = await withPrimaryCpu(
              seconds,
              () => runDoor(stack, door, kind, target, who, seconds, warmUp, scratch),
              warmUp,
            );
            rows.push({ kind: kind.name, callers, target, door, load, cpuPerWrite });
          }
          info(`${kind.name}, ${callers} callers, ${target}: done`);
        }
      }
    }
    const pendingRows = await hotPendingRows(root, aims.hot);
    const announced = await withAndWithoutAnnouncement(stack, kinds[0], accounts.slice(0, 16), seconds, scratch);
    const apart = await step('post likes, Postgres on a core of its own', async () => {
      const measured: Row[] = [];
      for (const callers of callerCounts) {
        for (const target of hotAndSpread) {
          for (const door of ['facade', 'pgbench'] as const) {
            const warmUp = warmUpOf(door, seconds);
            const run = () =>
              runDoor(stack, door, kinds[0], target, accounts.slice(0, callers), seconds, warmUp, scratch);
            const done = await onCoresApart(() => withPrimaryCpu(seconds, run, warmUp));
            if (done) measured.push({ kind: kinds[0].name, callers, target, door, ...done });
          }
        }
      }
      return measured;
    });
    const bursts = await step(
      'reports',
      async () => reportBursts(stack, root, callerCounts, accounts, await authorsOf(root, aims), reportRounds),
    );
    const finished = `finished: ${new Date().toISOString()}, load average ${
      Deno.loadavg().map((n) => n.toFixed(2)).join(' ')
    }`;
    console.log([...started, finished, database, `${seconds} s per run (BENCH_SECONDS)`, ''].join('\n'));
    console.log(report(kinds, rows, announced));
    console.log(pendingRows);
    console.log(apartReport(apart));
    console.log(burstReport(bursts));
  } finally {
    await restore();
    await root.end();
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function testStack() {
  const test = profile('test', readConfig());
  const stack = await up(test);
  if (stack.authUnavailable) throw new Error(`the benchmark signs callers in: ${stack.authUnavailable}`);
  return { stack, dir: test.dir, database: 'database: the test stack, fresh (the targets made for the run)' };
}

/** The kept bench database, with a replica as the test stack has one, as `bench:scale` does up to full size. */
async function keptStack() {
  const scale = Number(Deno.env.get('BENCH_SCALE') || 1);
  const { stack, bench, record } = await upKeptBench(scale, { replica: replicaByDefault(scale) });
  const sizes = await queryValue(
    stack.superuserUrl,
    `select format('%s posts, %s comments; the hot post has %s likes, the hot account %s followers',
      (select count(*) from public.posts), (select count(*) from public.comments),
      (select likes_count from public.posts p join public.profiles a on a.id = p.author_id
       where a.username = 'hot_author' and p.body = 'hot post 0'),
      (select followers_count from public.profiles where username = 'celebrity'))`,
  );
  return {
    stack,
    dir: bench.dir,
    database: `database: the kept bench database at scale ${record.scale}, seeded ${record.at} (${bench.dir}), ` +
      `${bench.replica ? 'with' : 'without'} its replica: ${sizes}`,
  };
}

function kindsOf(aims: Targets): Kind[] {
  const of = (field: keyof Aim) => (target: Target, i: number) =>
    target === 'hot' ? aims.hot[field] : aims.spread[i][field];
  return [
    {
      name: 'post like',
      path: (id) => `/post/${id}/like`,
      fn: 'like_post',
      arg: 'p_post_id',
      argType: 'uuid',
      targetOf: of('post'),
    },
    {
      name: 'comment like',
      path: (id) => `/post/comment/${id}/like`,
      fn: 'like_comment',
      arg: 'p_comment_id',
      argType: 'uuid',
      targetOf: of('comment'),
    },
    {
      name: 'comment',
      path: (id) => `/post/${id}/comment`,
      fn: 'comment_post',
      arg: 'p_post_id',
      argType: 'uuid',
      targetOf: of('post'),
      body: { facade: { body: 'so true' }, sql: { p_body: 'so true' } },
    },
    {
      name: 'follow',
      path: (username) => `/${username}/follow`,
      fn: 'follow',
      arg: 'p_username',
      argType: 'text',
      targetOf: of('account'),
    },
  ];
}

/** Who wrote the hot post, and each caller's spread post: the authors of the posts the callers report. */
async function authorsOf(root: postgres.Sql, aims: Targets): Promise<{ hot: string; spread: string[] }> {
  const ids = [aims.hot.post, ...aims.spread.map((s) => s.post)];
  const rows = await root`select id, author_id from public.posts where id = any(${ids}::uuid[])`;
  const author = (post: string) => rows.find((r) => r.id === post)!.author_id as string;
  return { hot: author(aims.hot.post), spread: aims.spread.map((s) => author(s.post)) };
}

/** The SQL of the write as each caller makes it: its target looked up by the caller's id (no table read). */
function sqlOf(kind: Kind, target: Target, who: Driver[]): string {
  const pairs = who.map((d, i) => `('${d.id}'::uuid, '${kind.targetOf(target, i)}'::${kind.argType})`);
  const rest = Object.entries(kind.body?.sql ?? {}).map(([arg, value]) => `, ${arg} => '${value}'`).join('');
  return `select public.${kind.fn}(${kind.arg} => (select t.target from (values ${pairs.join(', ')}) ` +
    `t(who, target) where t.who = auth.uid())${rest})`;
}

/**
 * Seconds each run of `door` loads before its figures start. pgbench's sessions are new at each run: it runs as long
 * again first, and its figures start once its last session is warm. The facade's and PostgREST's pools stay warm
 * from run to run, but a run is the first to meet a route group the facade loads with its first request, or callers
 * it has not verified and counted yet (the 64-caller runs after the 16-caller ones): a short load first, so that
 * whichever target runs first does not carry it (it was always the hot one: ×2.1 its p99 at 16 callers).
 */
function warmUpOf(door: Door, seconds: number): number {
  return door === 'pgbench' ? seconds : 3;
}

function runDoor(
  stack: Stack,
  door: Door,
  kind: Kind,
  target: Target,
  who: Driver[],
  seconds: number,
  warmUp: number,
  scratch: string,
): Promise<Load> {
  const targetOf = (i: number) => kind.targetOf(target, i);
  const tokens = who.map((d) => d.accessToken);
  if (door === 'facade') {
    return runWrk({
      url: `${stack.urls.functions}/api${kind.path(targetOf(0))}`,
      method: 'POST',
      tokens,
      perCaller: who.map((_, i) => ({ path: `/functions/v1/api${kind.path(targetOf(i))}`, body: kind.body?.facade })),
      connections: who.length,
      seconds,
      warmUp,
    }, scratch);
  }
  if (door === 'PostgREST') {
    return runWrk({
      url: `${stack.urls.rest}/rpc/${kind.fn}`,
      method: 'POST',
      tokens,
      headers: { apikey: stack.keys.anonKey },
      perCaller: who.map((_, i) => ({
        path: `/rest/v1/rpc/${kind.fn}`,
        body: { [kind.arg]: targetOf(i), ...kind.body?.sql },
      })),
      connections: who.length,
      seconds,
      warmUp,
    }, scratch);
  }
  return runPgbench(
    {
      url: roleUrl(stack.superuserUrl, 'authenticator'),
      sql: sqlOf(kind, target, who),
      identities: who.map((d) => d.identity),
      clients: who.length,
      seconds,
      warmUp,
    },
    join(pgBinDir(), 'pgbench'),
    scratch,
  );
}

/** The write as the facade and PostgREST make it (with the bump of the caller's write count) and without it. */
async function withAndWithoutAnnouncement(
  stack: Stack,
  kind: Kind,
  callers: Driver[],
  seconds: number,
  scratch: string,
) {
  const load = (sql: string) => ({
    url: roleUrl(stack.superuserUrl, 'authenticator'),
    sql,
    identities: callers.map((d) => d.identity),
    clients: callers.length / 2,
    seconds,
  });
  const write = sqlOf(kind, 'spread', callers);
  const [announced, silent] = await runPgbenchPair(
    load(`select private.note_write();\n${write}`),
    load(write),
    join(pgBinDir(), 'pgbench'),
    scratch,
  );
  return { announced, silent };
}

function report(kinds: Kind[], rows: Row[], announced: { announced: Load; silent: Load }): string {
  const find = (kind: string, callers: number, target: Target, door: Door) =>
    rows.find((r) => r.kind === kind && r.callers === callers && r.target === target && r.door === door)!;
  const lines = [
    '| write | callers | target | door | writes/s | p50 ms | p99 ms | primary CPU µs/write | failed |',
    '|---|---:|---|---|---:|---:|---:|---:|---|',
    ...rows.map((r) =>
      `| ${r.kind} | ${r.callers} | ${r.target} | ${r.door} | ${perSecond(r.load.perSecond)} | ${ms(r.load.p50)} | ${
        ms(r.load.p99)
      } | ${Number.isFinite(r.cpuPerWrite) ? Math.round(r.cpuPerWrite) : '–'} | ${r.load.failed ?? ''} |`
    ),
    '',
    '| write | callers | door | hot ÷ spread, rate (goal ≥ ×0.9) | hot ÷ spread, p99 (goal ≤ ×1.5) | ' +
    'hot ÷ spread, CPU/write | ÷ pgbench, rate (goal ≥ ×0.8 for the facade): spread, hot |',
    '|---|---:|---|---:|---:|---:|---|',
  ];
  for (const { name } of kinds) {
    for (const callers of callerCounts) {
      for (const door of doors) {
        const [hot, spread] = hotAndSpread.map((t) => find(name, callers, t, door));
        const share = door === 'pgbench'
          ? ''
          : hotAndSpread.map((t) =>
            ratio(find(name, callers, t, door).load.perSecond, find(name, callers, t, 'pgbench').load.perSecond)
          ).join(', ');
        lines.push(
          `| ${name} | ${callers} | ${door} | ${ratio(hot.load.perSecond, spread.load.perSecond)} | ${
            ratio(hot.load.p99, spread.load.p99)
          } | ${ratio(hot.cpuPerWrite, spread.cpuPerWrite)} | ${share} |`,
        );
      }
    }
  }
  const { announced: withMark, silent } = announced;
  lines.push(
    '',
    `Post likes on spread posts, 8 pgbench clients each side by side, with the write's announcement ` +
      `(private.note_write) ${perSecond(withMark.perSecond)}/s (p99 ${ms(withMark.p99)} ms), without ` +
      `${perSecond(silent.perSecond)}/s (p99 ${ms(silent.p99)} ms): ${
        ratio(withMark.perSecond, silent.perSecond)
      } (goal ≥ ×0.9).`,
  );
  return lines.join('\n');
}

/**
 * The facade against pgbench with Postgres alone on one core and everything else on the other (onCoresApart, the
 * layout of a hosted project): whether the facade keeps up with what Postgres can do, its own CPU left aside.
 */
function apartReport(apart: Row[]): string {
  if (apart.length === 0) return 'Post likes with Postgres on a core of its own: not run (one core).';
  const lines = [
    '',
    'Post likes with Postgres alone on one core, the facade, the gateway, wrk and pgbench on the other:',
    '',
    '| callers | target | facade writes/s | p99 ms | pgbench writes/s | p99 ms | facade ÷ pgbench, rate (goal ≥ ×0.8) | CPU/write, facade ÷ pgbench |',
    '|---:|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const callers of callerCounts) {
    for (const target of hotAndSpread) {
      const [facade, pgbench] = (['facade', 'pgbench'] as const).map((door) =>
        apart.find((r) => r.callers === callers && r.target === target && r.door === door)!
      );
      lines.push(
        `| ${callers} | ${target} | ${perSecond(facade.load.perSecond)} | ${ms(facade.load.p99)} | ${
          perSecond(pgbench.load.perSecond)
        } | ${ms(pgbench.load.p99)} | ${ratio(facade.load.perSecond, pgbench.load.perSecond)} | ${
          ratio(facade.cpuPerWrite, pgbench.cpuPerWrite)
        } |`,
      );
    }
  }
  return [...lines, ''].join('\n');
}

function burstReport(bursts: Burst[]): string {
  const find = (callers: number, target: Burst['target'], door: Burst['door']) =>
    bursts.find((b) => b.callers === callers && b.target === target && b.door === door)!;
  const lines = [
    `Reports: every caller reports a new post at the same instant, all the same post (hot) or each its own (spread); ` +
    `${reportRounds} rounds each (BENCH_REPORT_ROUNDS), hot and spread in turn through each door, after one of each that warms the sessions up.`,
    '',
    '| callers | target | door | reports/s | p50 ms | p99 ms | primary CPU µs/report | failed |',
    '|---:|---|---|---:|---:|---:|---:|---|',
    ...bursts.map((b) =>
      `| ${b.callers} | ${b.target} | ${b.door} | ${perSecond(b.load.perSecond)} | ${ms(b.load.p50)} | ${
        ms(b.load.p99)
      } | ${Number.isFinite(b.cpuPerWrite) ? Math.round(b.cpuPerWrite) : '–'} | ${b.load.failed ?? ''} |`
    ),
    '',
    '| callers | door | hot ÷ spread, rate (goal ≥ ×0.9) | hot ÷ spread, p99 (goal ≤ ×1.5) | hot ÷ spread, CPU/report |',
    '|---:|---|---:|---:|---:|',
  ];
  for (const callers of callerCounts) {
    for (const door of burstDoors) {
      const [hot, spread] = [find(callers, 'hot', door), find(callers, 'spread', door)];
      lines.push(
        `| ${callers} | ${door} | ${ratio(hot.load.perSecond, spread.load.perSecond)} | ${
          ratio(hot.load.p99, spread.load.p99)
        } | ${ratio(hot.cpuPerWrite, spread.cpuPerWrite)} |`,
      );
    }
  }
  return lines.join('\n');
}
