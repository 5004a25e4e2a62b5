// `npm run bench:writes`: how writes scale (issue 55; docs/PERFORMANCE.md, "What breaks first as traffic grows").
// On a fresh test stack (its ports; STACK_TEST_PORT_SHIFT moves them), signed-in callers toggle likes, at 16 and 64
// callers, on one hot post (everyone on the same post) and on spread posts (each caller on a post of its own),
// through the facade (the gateway, wrk), PostgREST's rpc() (wrk) and pgbench of the same SQL function as each caller;
// then the write count alone, with and without the pg_notify writes sent until issue 55, in one pgbench run. Prints
// rates, p50 and p99 and the ratios the issue asks for: a hot target against spread ones, the facade against pgbench.
//   BENCH_SECONDS (default 10) per run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { profile, readConfig } from '../stack/config.ts';
import { info, step } from '../stack/log.ts';
import { pgBinDir, roleUrl } from '../stack/postgres.ts';
import { up } from '../stack/stack.ts';
import { type Driver, signUpDrivers } from './drivers.ts';
import { raiseLimits } from './limits.ts';
import type { Load } from './load.ts';
import { runPgbench, runPgbenchPair } from './pgbench.ts';
import { ms, perSecond, ratio } from './stats.ts';
import { ensureWrkInstalled, runWrk } from './wrk.ts';

const callerCounts = [16, 64];
type Target = 'hot' | 'spread';
type Door = 'facade' | 'PostgREST' | 'pgbench';

interface Row {
  callers: number;
  target: Target;
  door: Door;
  load: Load;
}

export async function writesBench(): Promise<void> {
  const seconds = Math.max(2, Number(Deno.env.get('BENCH_SECONDS') || 10));
  const stackProfile = profile('test', readConfig());
  const stack = await up(stackProfile);
  if (stack.authUnavailable) throw new Error(`the benchmark signs callers in: ${stack.authUnavailable}`);
  const logDir = join(stackProfile.dir, 'logs');
  await ensureWrkInstalled(logDir);
  const root = postgres(stack.superuserUrl, { max: 1, onnotice: () => {} });
  const restore = await raiseLimits(root);
  const scratch = mkdtempSync(join(tmpdir(), 'writes-'));
  try {
    const drivers = await step('callers', () => signUpDrivers(stack, Math.max(...callerCounts)));
    const [{ id: hot }] = await root`
      insert into public.posts (author_id, body) values (${drivers[0].id}, 'the hot post') returning id`;
    const own = new Map<string, string>();
    for (const driver of drivers) {
      const [{ id }] = await root`
        insert into public.posts (author_id, body) values (${driver.id}, 'a post of its own') returning id`;
      own.set(driver.id, id);
    }
    await root`analyze`;
    const rows: Row[] = [];
    for (const callers of callerCounts) {
      const who = drivers.slice(0, callers);
      for (const target of ['hot', 'spread'] as Target[]) {
        const postOf = (d: Driver) => target === 'hot' ? hot : own.get(d.id)!;
        const facade = await runWrk({
          url: `${stack.urls.functions}/api/post/${hot}/like`,
          method: 'POST',
          tokens: who.map((d) => d.accessToken),
          perCaller: who.map((d) => ({ path: `/functions/v1/api/post/${postOf(d)}/like` })),
          connections: callers,
          seconds,
        }, scratch);
        rows.push({ callers, target, door: 'facade', load: facade });
        const rest = await runWrk({
          url: `${stack.urls.rest}/rpc/like_post`,
          method: 'POST',
          tokens: who.map((d) => d.accessToken),
          headers: { apikey: stack.keys.anonKey },
          perCaller: who.map((d) => ({ path: '/rest/v1/rpc/like_post', body: { p_post_id: postOf(d) } })),
          connections: callers,
          seconds,
        }, scratch);
        rows.push({ callers, target, door: 'PostgREST', load: rest });
        const sqlTarget = target === 'hot'
          ? `'${hot}'`
          : `(select p.id from public.posts p where p.author_id = auth.uid() and p.body = 'a post of its own')`;
        const sql = await runPgbench(
          {
            url: roleUrl(stack.superuserUrl, 'authenticator'),
            sql: `select public.like_post(p_post_id => ${sqlTarget})`,
            identities: who.map((d) => d.identity),
            clients: callers,
            seconds,
          },
          join(pgBinDir(), 'pgbench'),
          scratch,
        );
        rows.push({ callers, target, door: 'pgbench', load: sql });
        info(`${callers} callers, ${target}: done`);
      }
    }
    const notices = await commitsWithAndWithoutNotice(stack.superuserUrl, drivers.slice(0, 8), seconds, scratch);
    console.log(report(rows, notices));
  } finally {
    await restore();
    await root.end();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The write count alone, as each write made it until issue 55 (with its notice) and as now, side by side. */
async function commitsWithAndWithoutNotice(url: string, callers: Driver[], seconds: number, scratch: string) {
  const ids = `array[${callers.map((d) => `'${d.id}'`).join(', ')}]::uuid[]`;
  // Each transaction counts a write of one of the callers, as private.note_write does.
  const transaction = (notify: boolean) =>
    `\\set n random(1, ${callers.length})\nbegin;\n` +
    `insert into private.write_marks as m (user_id, writes) values ((${ids})[:n], 1) ` +
    `on conflict (user_id) do update set writes = m.writes + 1;\n` +
    `${notify ? "select pg_notify('replica_reads', 'wrote');\n" : ''}commit`;
  const [withNotice, without] = await runPgbenchPair(
    { url, sql: transaction(true), identities: [], clients: callers.length, seconds, raw: true },
    { url, sql: transaction(false), identities: [], clients: callers.length, seconds, raw: true },
    join(pgBinDir(), 'pgbench'),
    scratch,
  );
  return { withNotice, without };
}

function report(rows: Row[], notices: { withNotice: Load; without: Load }): string {
  const find = (callers: number, target: Target, door: Door) =>
    rows.find((r) => r.callers === callers && r.target === target && r.door === door)!.load;
  const lines = [
    '| callers | target | door | writes/s | p50 ms | p99 ms | failed |',
    '|---:|---|---|---:|---:|---:|---|',
    ...rows.map((r) =>
      `| ${r.callers} | ${r.target} | ${r.door} | ${perSecond(r.load.perSecond)} | ${ms(r.load.p50)} | ${
        ms(r.load.p99)
      } | ${r.load.failed ?? ''} |`
    ),
    '',
    '| callers | door | hot ÷ spread, rate (goal ≥ ×0.9) | hot ÷ spread, p99 (goal ≤ ×1.5) | facade ÷ pgbench, rate (goal ≥ ×0.8) |',
    '|---:|---|---:|---:|---:|',
  ];
  for (const callers of callerCounts) {
    for (const door of ['facade', 'PostgREST', 'pgbench'] as Door[]) {
      const hot = find(callers, 'hot', door);
      const spread = find(callers, 'spread', door);
      const facadeShare = door === 'facade'
        ? `spread ${ratio(spread.perSecond, find(callers, 'spread', 'pgbench').perSecond)}, hot ${
          ratio(hot.perSecond, find(callers, 'hot', 'pgbench').perSecond)
        }`
        : '';
      lines.push(
        `| ${callers} | ${door} | ${ratio(hot.perSecond, spread.perSecond)} | ${
          ratio(hot.p99, spread.p99)
        } | ${facadeShare} |`,
      );
    }
  }
  const { withNotice, without } = notices;
  lines.push(
    '',
    `The write count alone, 8 clients each side by side: with the notice ${perSecond(withNotice.perSecond)}/s ` +
      `(p99 ${ms(withNotice.p99)} ms), without ${perSecond(without.perSecond)}/s (p99 ${ms(without.p99)} ms): ` +
      `${ratio(withNotice.perSecond, without.perSecond)}.`,
  );
  return lines.join('\n');
}
