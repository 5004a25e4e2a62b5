// `npm run bench:replica`: what a read served by the replica costs the primary (issue 42 item 1; docs/PERFORMANCE.md,
// "Reads and replicas"). On a fresh test stack (its ports; STACK_TEST_PORT_SHIFT moves them) with the demo network,
// each version of functions/api in BENCH_REPLICA_VERSIONS (label=revision, comma-separated; `.` is the working
// tree) runs as a fresh function process beside the stack's, is left to settle (it trusts what the primary tells it
// only after a whole staleness bound), and serves signed-in GET /post/:id straight to its port (wrk, 8 callers),
// versions in turn round after round. The CPU time the primary's and the replica's Postgres processes spend per
// read, and the primary's transactions per read, say what each read costs where. Then, in one pgbench run side by
// side on the primary, the read's own text against the primary-side text the facade sent per replica read before
// (the request quota, the session check, the caller's write count): the issue's measure. Report:
// supabase/bench/reports/REPLICA-SHARE.md (REPLICA-SHARE-LONE-READER.md for one caller).
//   BENCH_ROUNDS (default 3) rounds; BENCH_SECONDS (default 10) per measured run; BENCH_REPLICA_CALLERS (default 8).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { type Database, identity } from '../../functions/api/lib/db.ts';
import { createRoleSettings } from '../../functions/api/lib/role-settings.ts';
import { profile, readConfig, repoRoot } from '../stack/config.ts';
import { facadeArgs } from '../stack/facade-command.ts';
import { info, step } from '../stack/log.ts';
import { pgBinDir, queryValue, roleUrl } from '../stack/postgres.ts';
import { facadeEnv, seed, up } from '../stack/stack.ts';
import { cpuSecondsOf } from './cpu.ts';
import { oneMessage } from './facade-cost.ts';
import { signUpDrivers } from './drivers.ts';
import { runPgbenchPair } from './pgbench.ts';
import { median, ms, perSecond, ratio } from './stats.ts';
import { checkOut, type Version } from './versions.ts';
import { runWrk } from './wrk.ts';

/** CPU ms as whole µs. */
const micros = (cpuMs: number) => (cpuMs * 1000).toFixed(0);

/**
 * Before issue 42's first item, with ended sessions and counted writes pushed, with request counts batched, and
 * with a round trip on the listening connection before each signed-in read (caller-events.ts).
 */
const defaultVersions = [
  'before=94270ae',
  'ended sessions and writes pushed=236ac43',
  'and the request counts batched=a1e7fe0',
  'and every notice heard before a read=.',
].join(',');
/** BENCH_REPLICA_CALLERS=1 measures a lone reader: no other read shares its round trip on the listening connection. */
const callers = Math.max(1, Number(Deno.env.get('BENCH_REPLICA_CALLERS') || 8));
/** How long the primary's CPU is measured with no reads, before each run. */
const idleSeconds = 4;

interface Run {
  perSecond: number;
  /** CPU ms per read of the primary's Postgres processes, and of the replica's. */
  primaryMs: number;
  /** Of primaryMs, what the primary spent anyway: its CPU per second with no reads (the lag measurement, the
   * checkpointer, the WAL sender…), times the run's seconds, per read. */
  idleMs: number;
  replicaMs: number;
  /** Transactions the primary ran per read (commits and rollbacks of its database). */
  primaryTransactions: number;
}

async function waitForHealth(url: string, child: Deno.ChildProcess): Promise<void> {
  for (;;) {
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    const status = await Promise.race([child.status, new Promise((resolve) => setTimeout(resolve, 50))]);
    if (status) throw new Error(`the function exited before answering ${url}`);
  }
}

export async function replicaShareBench(): Promise<void> {
  const rounds = Math.max(1, Number(Deno.env.get('BENCH_ROUNDS') || 3));
  const seconds = Math.max(2, Number(Deno.env.get('BENCH_SECONDS') || 10));
  const stackProfile = profile('test', readConfig());
  const stack = await up(stackProfile);
  if (stack.authUnavailable) throw new Error(`the benchmark signs callers in: ${stack.authUnavailable}`);
  if (!stack.replicaUrl) throw new Error('the stack runs no replica');
  await step('demo network (supabase/seed.sql)', () => seed(stack.superuserUrl, join(stackProfile.dir, 'logs')));
  const root = postgres(stack.superuserUrl, { max: 1, onnotice: () => {} });
  // The same few callers read for minutes: the request limits are raised out of their reach.
  await root`update private.request_limits set max_requests = 2000000000`;
  const postId = await queryValue(
    stack.superuserUrl,
    "select id from public.posts where privacy = 'public' order by created_at limit 1",
  );
  const drivers = await signUpDrivers(stack, callers);
  const port = stackProfile.ports.functions + 100;
  const env = {
    ...facadeEnv(stackProfile, stack.keys, {
      primaryUrl: stack.superuserUrl,
      poolerUrl: stack.poolerUrl,
      replicaUrl: stack.replicaUrl,
    }),
    PORT: String(port),
  };
  const url = `http://127.0.0.1:${port}/api/post/${postId}`;
  // The facade's default staleness bound (the stack does not set DB_REPLICA_MAX_LAG_MS), and a margin.
  const settleMs = 2_000 + 2_000;
  const scratch = mkdtempSync(join(tmpdir(), 'replica-share-'));
  const transactions = async () =>
    Number(
      (await root`select xact_commit + xact_rollback as n from pg_stat_database where datname = current_database()`)[0]
        .n,
    );
  try {
    const versions = await checkOut(Deno.env.get('BENCH_REPLICA_VERSIONS') || defaultVersions, scratch);
    const runs = new Map<string, Run[]>(versions.map((v) => [v.label, []]));
    const wrk = (seconds: number) =>
      runWrk({ url, method: 'GET', tokens: drivers.map((d) => d.accessToken), connections: callers, seconds }, scratch);

    const measure = async (version: Version): Promise<Run> => {
      const child = new Deno.Command(Deno.execPath(), {
        args: facadeArgs(version.dir, version.flags),
        env,
        cwd: repoRoot,
        stdin: 'null',
        stdout: 'null',
        stderr: 'inherit', // a version that fails says why
      }).spawn();
      try {
        await waitForHealth(`http://127.0.0.1:${port}/api/health`, child);
        await wrk(2); // its connections open, its code compiled
        await new Promise((resolve) => setTimeout(resolve, settleMs));
        const idleStart = cpuSecondsOf('postgres');
        await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
        const idlePerSecond = (cpuSecondsOf('postgres') - idleStart) / idleSeconds;
        const before = {
          primary: cpuSecondsOf('postgres'),
          replica: cpuSecondsOf('replica'),
          tx: await transactions(),
        };
        const load = await wrk(seconds);
        const after = { primary: cpuSecondsOf('postgres'), replica: cpuSecondsOf('replica'), tx: await transactions() };
        if (load.failed) throw new Error(`${version.label}: ${load.failed}`);
        const reads = load.perSecond * seconds;
        return {
          perSecond: load.perSecond,
          primaryMs: (after.primary - before.primary) * 1000 / reads,
          idleMs: idlePerSecond * seconds * 1000 / reads,
          replicaMs: (after.replica - before.replica) * 1000 / reads,
          // Less the one this look-up itself ran.
          primaryTransactions: (after.tx - before.tx - 1) / reads,
        };
      } finally {
        try {
          child.kill('SIGKILL');
        } catch {
          // it has exited already (its error is in the log above)
        }
        await child.status;
      }
    };

    await step(`${rounds} rounds of ${versions.length} versions, ${seconds} s each`, async () => {
      for (let round = 0; round < rounds; round++) {
        const order = versions.map((_, i) => versions[(i + round) % versions.length]);
        for (const version of order) runs.get(version.label)!.push(await measure(version));
      }
    });

    const texts = await primaryTexts(roleUrl(stack.superuserUrl, 'authenticator'), drivers[0].identity.claims, postId);
    const [read, primarySide] = await step(
      'pgbench: the read beside its primary-side text before',
      () =>
        runPgbenchPair(
          {
            url: roleUrl(stack.superuserUrl, 'authenticator'),
            sql: texts.read,
            identities: [],
            clients: callers,
            seconds,
            raw: true,
          },
          { url: '', sql: texts.primarySide, identities: [], clients: callers, seconds, raw: true },
          join(pgBinDir(), 'pgbench'),
          scratch,
        ),
    );

    // What the notice costs a write: private.note_write beside the same count without its notice (a copy of the
    // function as it was, made for the run), each with a like toggled on a post of its client's (the demo
    // network's public posts), 8 callers each, so that only the notice differs.
    await root.unsafe(`
      create function private.note_write_silently() returns void language sql volatile security definer
      set search_path = '' as $$
        insert into private.write_marks as m (user_id, writes) select auth.uid(), 1 where auth.uid() is not null
        on conflict (user_id) do update set writes = m.writes + 1;
      $$;
      grant execute on function private.note_write_silently() to authenticated`);
    for (const driver of drivers) {
      await root`select moderation.trust_writer(${driver.username}, 'drives the replica benchmark')`;
    }
    const like =
      "select public.like_post(p_post_id => (select p.id from public.posts p join public.profiles a on a.id = p.author_id where p.privacy = 'public' and not a.is_private and a.banned_at is null order by p.id offset :client_id % 16 limit 1))";
    const identities = drivers.map((driver) => driver.identity);
    const [announced, silent] = await step(
      'pgbench: a write counted with its notice, beside it without',
      () =>
        runPgbenchPair(
          {
            url: roleUrl(stack.superuserUrl, 'authenticator'),
            sql: `select private.note_write();\n${like}`,
            identities,
            clients: callers,
            seconds,
          },
          { url: '', sql: `select private.note_write_silently();\n${like}`, identities, clients: callers, seconds },
          join(pgBinDir(), 'pgbench'),
          scratch,
        ),
    );
    // The count alone, with and without its notice: notifying commits go one at a time, so this is their ceiling.
    const [announcedAlone, silentAlone] = await step(
      'pgbench: the count alone, with its notice and without',
      () =>
        runPgbenchPair(
          {
            url: roleUrl(stack.superuserUrl, 'authenticator'),
            sql: 'select private.note_write()',
            identities,
            clients: callers,
            seconds,
          },
          { url: '', sql: 'select private.note_write_silently()', identities, clients: callers, seconds },
          join(pgBinDir(), 'pgbench'),
          scratch,
        ),
    );
    await root`drop function private.note_write_silently()`;

    const lines = [
      '# What a replica read costs the primary',
      '',
      `\`npm run bench:replica\` (supabase/bench/replica-share.ts), ${new Date().toISOString().slice(0, 16)} UTC, ` +
      `this machine (2 shared cores); ${rounds} rounds, versions in turn; each run ${seconds} s of signed-in`,
      `GET /post/:id by ${callers} callers (wrk, straight to a fresh function process of that version, settled ` +
      `${settleMs / 1000} s), the stack's replica and pooler. Medians of the rounds. *Of which idle*: what the ` +
      `primary's processes spent in ${idleSeconds} s with the function up and no reads, scaled to the run, per read ` +
      '(the lag measured every quarter second, the checkpointer, the WAL sender); *less idle*: the ratio without it.',
      '',
      '| version | reads/s | primary CPU per read (µs) | of which idle | replica CPU per read (µs) | primary ÷ replica | less idle | primary transactions per read |',
      '|---|---|---|---|---|---|---|---|',
    ];
    for (const version of versions) {
      const all = runs.get(version.label)!;
      const m = (key: keyof Run) => median(all.map((run) => run[key]));
      lines.push(
        `| ${version.label} (\`${version.revision}\`) | ${perSecond(m('perSecond'))} | ${micros(m('primaryMs'))} | ${
          micros(m('idleMs'))
        } | ${micros(m('replicaMs'))} | ${ratio(m('primaryMs'), m('replicaMs'))} | ${
          ratio(m('primaryMs') - m('idleMs'), m('replicaMs'))
        } | ${m('primaryTransactions').toFixed(3)} |`,
      );
    }
    lines.push(
      '',
      "Each round's figures (primary µs / replica µs per read):",
      '',
      ...versions.map((v) =>
        `- ${v.label}: ${runs.get(v.label)!.map((r) => `${micros(r.primaryMs)} / ${micros(r.replicaMs)}`).join(', ')}`
      ),
      '',
      `pgbench, one run side by side on the primary (${callers} clients each, ${seconds} s): the read's own text ` +
        `${perSecond(read.perSecond)} tps (p50 ${ms(read.p50)} ms); the primary-side text a replica read sent ` +
        `before ${perSecond(primarySide.perSecond)} tps (p50 ${ms(primarySide.p50)} ms): it cost ` +
        `${ratio(read.perSecond, primarySide.perSecond)} of the read. After, a replica read sends the primary no ` +
        'statement of its own (the table above: what remains is shared by all reads, such as the lag measurement ' +
        'every quarter second and the request counts written in batches), and since the last version a `select 1` ' +
        "on the instance's listening connection before a signed-in read, one shared by the reads that arrive " +
        'while it is under way.',
      '',
      `What the notice costs a write (pgbench, one run side by side, ${callers} callers each): a like toggled beside ` +
        `\`private.note_write()\` ${perSecond(announced.perSecond)} tps (p50 ${ms(announced.p50)} ms, p99 ${
          ms(announced.p99)
        } ms), beside the same count without its notice ${perSecond(silent.perSecond)} tps (p50 ${
          ms(silent.p50)
        } ms, ` +
        `p99 ${ms(silent.p99)} ms): ${
          ratio(announced.perSecond, silent.perSecond)
        }. The count alone: with its notice ` +
        `${perSecond(announcedAlone.perSecond)} tps, without ${perSecond(silentAlone.perSecond)} tps (${
          ratio(announcedAlone.perSecond, silentAlone.perSecond)
        }). Notifying transactions commit one at a time (Postgres holds a lock from the notice to the end of the ` +
        'commit, its WAL flush included): the count alone with its notice is about the most writes per second this ' +
        'database commits (docs/PERFORMANCE.md).',
      '',
      'The texts:',
      '',
      '```sql',
      `-- the read (on the replica, as the facade sends it)\n${texts.read}`,
      `-- the primary-side text before\n${texts.primarySide}`,
      '```',
      '',
    );
    const text = lines.join('\n');
    const name = callers === 1 ? 'REPLICA-SHARE-LONE-READER.md' : 'REPLICA-SHARE.md';
    const path = join(repoRoot, 'supabase', 'bench', 'reports', name);
    await Deno.writeTextFile(path, text);
    console.log(text);
    info(`report: ${path}`);
  } finally {
    await root.end();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The read's text as the facade sends it to a replica (role settings, role and claims, the replica check, the
 * statement), and what the facade sent the primary for each replica read before (the request quota in a
 * transaction of its own, the role settings, the session check, the caller's write count), each as one message.
 */
async function primaryTexts(authenticatorUrl: string, claims: Record<string, unknown>, postId: string) {
  const authenticator = postgres(authenticatorUrl, { max: 1, onnotice: () => {} });
  try {
    const db = { roleSettings: createRoleSettings(authenticator) } as unknown as Database;
    const caller = {
      role: 'authenticated',
      userId: String(claims.sub),
      sessionId: String(claims.session_id),
      claims,
    } as Parameters<typeof identity>[1];
    const replicaPreamble = await identity(db, caller, { checkSession: false, countWrite: false });
    const primaryPreamble = await identity(db, caller, { checkSession: true, countWrite: false });
    return {
      read: oneMessage(
        `${replicaPreamble.text} select private.replica_ready(0); select public.get_post('${postId}') as result`,
      ),
      primarySide: oneMessage(
        `select set_config('client_min_messages', 'error', true), private.take_request_quota('${claims.sub}', ` +
          `'127.0.0.1') as request_quota; commit; ${primaryPreamble.text} select private.read_mark() as writes`,
      ),
    };
  } finally {
    await authenticator.end();
  }
}
