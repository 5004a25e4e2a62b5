// `npm run bench:writes`: how writes scale (issue 55; docs/PERFORMANCE.md, "What breaks first as traffic grows").
// On a fresh test stack (its ports; STACK_TEST_PORT_SHIFT moves them), signed-in callers toggle post likes, comment
// likes and follows, at 16 and 64 callers, on one hot target (everyone likes the same post or comment, follows the
// same account) and on spread targets (caller n likes caller n + 1's post or comment, follows caller n + 1), through
// the facade (the gateway, wrk), PostgREST's rpc() (wrk) and pgbench of the same SQL function as each caller. Every
// target belongs to someone else, so each like and follow notifies its author, hot or spread. Then the post like
// with and without the write's announcement (private.note_write, the bump of the caller's write count that the
// facade and PostgREST make with every write), side by side in one pgbench run. Prints rates, p50, p99, the
// primary's CPU per write and the ratios the issue asks for: a hot target against spread ones, the facade against
// pgbench, the writes with their announcement against the same writes without.
//   BENCH_SECONDS (default 10) per run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { profile, readConfig } from '../stack/config.ts';
import { info, step } from '../stack/log.ts';
import { pgBinDir, roleUrl } from '../stack/postgres.ts';
import { type Stack, up } from '../stack/stack.ts';
import { type Driver, signUpDrivers } from './drivers.ts';
import { raiseLimits } from './limits.ts';
import type { Load } from './load.ts';
import { runPgbench, runPgbenchPair } from './pgbench.ts';
import { withPrimaryCpu } from './primary-cpu.ts';
import { ms, perSecond, ratio } from './stats.ts';
import { ensureWrkInstalled, runWrk } from './wrk.ts';

const callerCounts = [16, 64];
const targets = ['hot', 'spread'] as const;
const doors = ['facade', 'PostgREST', 'pgbench'] as const;
type Target = typeof targets[number];
type Door = typeof doors[number];

/** A kind of write: its facade path, its SQL function and argument, and the target of caller `i` of `n`. */
interface Kind {
  name: string;
  path: (target: string) => string;
  fn: string;
  arg: string;
  argType: 'uuid' | 'text';
  targetOf: (target: Target, i: number, n: number) => string;
}

interface Row {
  kind: string;
  callers: number;
  target: Target;
  door: Door;
  load: Load;
  cpuPerWrite: number;
}

export async function writesBench(): Promise<void> {
  const seconds = Math.max(4, Number(Deno.env.get('BENCH_SECONDS') || 10));
  const stackProfile = profile('test', readConfig());
  const stack = await up(stackProfile);
  if (stack.authUnavailable) throw new Error(`the benchmark signs callers in: ${stack.authUnavailable}`);
  const logDir = join(stackProfile.dir, 'logs');
  await ensureWrkInstalled(logDir);
  const root = postgres(stack.superuserUrl, { max: 1, onnotice: () => {} });
  const restore = await raiseLimits(root);
  const scratch = mkdtempSync(join(tmpdir(), 'writes-'));
  try {
    // The callers, and one more account that owns the hot targets.
    const accounts = await step('callers', () => signUpDrivers(stack, Math.max(...callerCounts) + 1));
    const star = accounts.pop()!;
    const kinds = await createTargets(root, star, accounts);
    await root`analyze`;
    const rows: Row[] = [];
    for (const kind of kinds) {
      for (const callers of callerCounts) {
        for (const target of targets) {
          const who = accounts.slice(0, callers);
          for (const door of doors) {
            const { load, cpuPerWrite } = await withPrimaryCpu(
              seconds,
              () => runDoor(stack, door, kind, target, who, seconds, scratch),
            );
            rows.push({ kind: kind.name, callers, target, door, load, cpuPerWrite });
          }
          info(`${kind.name}, ${callers} callers, ${target}: done`);
        }
      }
    }
    const announced = await withAndWithoutAnnouncement(stack, kinds[0], accounts.slice(0, 16), seconds, scratch);
    console.log(report(kinds, rows, announced));
  } finally {
    await restore();
    await root.end();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The post, comment and account everyone writes to (the star's), and each caller's own. */
async function createTargets(root: postgres.Sql, star: Driver, callers: Driver[]): Promise<Kind[]> {
  const post = async (author: Driver) =>
    (await root`insert into public.posts (author_id, body) values (${author.id}, 'a day') returning id`)[0].id;
  const comment = async (author: Driver, on: string) =>
    (await root`insert into public.comments (post_id, author_id, body) values (${on}, ${author.id}, 'so true')
      returning id`)[0].id;
  const hotPost = await post(star);
  const hotComment = await comment(star, hotPost);
  const posts: string[] = [];
  const comments: string[] = [];
  for (const caller of callers) {
    posts.push(await post(caller));
    comments.push(await comment(caller, posts.at(-1)!));
  }
  const next = (i: number, n: number) => (i + 1) % n;
  return [
    {
      name: 'post like',
      path: (id) => `/post/${id}/like`,
      fn: 'like_post',
      arg: 'p_post_id',
      argType: 'uuid',
      targetOf: (target, i, n) => target === 'hot' ? hotPost : posts[next(i, n)],
    },
    {
      name: 'comment like',
      path: (id) => `/post/comment/${id}/like`,
      fn: 'like_comment',
      arg: 'p_comment_id',
      argType: 'uuid',
      targetOf: (target, i, n) => target === 'hot' ? hotComment : comments[next(i, n)],
    },
    {
      name: 'follow',
      path: (username) => `/${username}/follow`,
      fn: 'follow',
      arg: 'p_username',
      argType: 'text',
      targetOf: (target, i, n) => target === 'hot' ? star.username : callers[next(i, n)].username,
    },
  ];
}

/** The SQL of the write as each caller makes it: its target looked up by the caller's id (no table read). */
function sqlOf(kind: Kind, target: Target, who: Driver[]): string {
  const pairs = who.map((d, i) => `('${d.id}'::uuid, '${kind.targetOf(target, i, who.length)}'::${kind.argType})`);
  return `select public.${kind.fn}(${kind.arg} => (select t.target from (values ${pairs.join(', ')}) ` +
    `t(who, target) where t.who = auth.uid()))`;
}

function runDoor(
  stack: Stack,
  door: Door,
  kind: Kind,
  target: Target,
  who: Driver[],
  seconds: number,
  scratch: string,
): Promise<Load> {
  const targetOf = (i: number) => kind.targetOf(target, i, who.length);
  const tokens = who.map((d) => d.accessToken);
  if (door === 'facade') {
    return runWrk({
      url: `${stack.urls.functions}/api${kind.path(targetOf(0))}`,
      method: 'POST',
      tokens,
      perCaller: who.map((_, i) => ({ path: `/functions/v1/api${kind.path(targetOf(i))}` })),
      connections: who.length,
      seconds,
    }, scratch);
  }
  if (door === 'PostgREST') {
    return runWrk({
      url: `${stack.urls.rest}/rpc/${kind.fn}`,
      method: 'POST',
      tokens,
      headers: { apikey: stack.keys.anonKey },
      perCaller: who.map((_, i) => ({ path: `/rest/v1/rpc/${kind.fn}`, body: { [kind.arg]: targetOf(i) } })),
      connections: who.length,
      seconds,
    }, scratch);
  }
  return runPgbench(
    {
      url: roleUrl(stack.superuserUrl, 'authenticator'),
      sql: sqlOf(kind, target, who),
      identities: who.map((d) => d.identity),
      clients: who.length,
      seconds,
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
        const [hot, spread] = targets.map((t) => find(name, callers, t, door));
        const share = door === 'pgbench'
          ? ''
          : targets.map((t) =>
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
