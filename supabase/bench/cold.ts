// `npm run bench:cold`: the api function's cold start (issue 42 item 2; docs/PERFORMANCE.md, "Cold start"). On a
// fresh test stack (its ports, STACK_TEST_PORT_SHIFT moves them) seeded with supabase/seed.sql, fresh function
// processes are started exactly as the stack starts its own (facade-command.ts, stack.ts facadeEnv), and timed
// from the spawn to the first answer of GET /health, and in other starts of GET /post/:id; and started by the
// stack's own code (spawnFacade: setsid, its log, its readiness check), timed until that check is answered. Each version of
// functions/api in BENCH_COLD_VERSIONS (label=git revision, comma-separated; `label=.` is the working tree), with
// the flags of its revision's facade-command.ts, is started in turn, round after round, so every version meets the same seconds of a shared, noisy machine: the
// savings are medians of one run, side by side. Then each version's breakdown (bench/cold-probe.ts), and the
// size of what `supabase functions deploy api --use-api` uploads (function-bundle.ts). The report goes to
// supabase/bench/reports/COLD-START.md.
//   BENCH_STARTS (default 9) starts per version and target.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { profile, readConfig, repoRoot } from '../stack/config.ts';
import { facadeArgs } from '../stack/facade-command.ts';
import { functionBundle } from '../tools/function-bundle.ts';
import { info, step } from '../stack/log.ts';
import { queryValue } from '../stack/postgres.ts';
import { facadeEnv, seed, spawnFacade, up } from '../stack/stack.ts';
import { median, ms } from './stats.ts';
import { checkOut, type Version } from './versions.ts';

/**
 * Issue 55's cold-start changes, each measured against the one before: main before them, then each commit that
 * changed what a start does (issue 42's are in git's history of supabase/bench/reports/COLD-START.md).
 */
const defaultVersions = [
  'before=a68f499',
  'route groups loaded with their first request=9a592a7',
  'jose with the first token=c52a93f',
  'no array types fetched per connection=6f69b58',
  'role settings read at start=d14038c',
  "Deno's --unstable-lazy-dynamic-imports=c1c96f5",
  'array types fetched again (6f69b58 reverted)=e588573',
  // The same code as the line above: how far two medians of one code differ in this run.
  'the working tree=.',
].join(',');

interface Breakdown {
  /** From the spawn to the probe's first line: the runtime's own start. */
  runtime: number;
  load: number;
  /** The CPU time of the import. */
  loadCpu: number;
  construct: number;
  connect: number;
  /** The import of the posts route group (none where the app imports every group) and its CPU time. */
  groupLoad: number;
  groupCpu: number;
  firstPost: number;
  secondPost: number;
  openapi: number;
  openapiAgain: number;
}

const targets = ['/health', '/post/:id'] as const;

/**
 * The CPU time in ms all threads of process `pid` have run (Linux's schedstat, in ns): what a start costs the
 * machine, which a busy neighbour moves much less than the wall-clock time.
 */
function cpuMs(pid: number): number {
  let ns = 0;
  for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
    ns += Number(Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/schedstat`).split(' ')[0]);
  }
  return ns / 1e6;
}

interface Start {
  /** Wall-clock ms from the spawn to the first answer. */
  wall: number;
  /** CPU ms the process ran until then. */
  cpu: number;
}

/** A fresh function process from its spawn to the first answer of `url`. */
async function firstAnswer(args: string[], env: Record<string, string>, url: string): Promise<Start> {
  const start = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args,
    env,
    cwd: repoRoot,
    stdin: 'null',
    stdout: 'null',
    stderr: 'null',
  }).spawn();
  try {
    for (;;) {
      try {
        const response = await fetch(url);
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`${url} answered ${response.status}`);
        return { wall: performance.now() - start, cpu: cpuMs(child.pid) };
      } catch (error) {
        if (!(error instanceof TypeError)) throw error; // not listening yet: try again
        const status = await Promise.race([
          child.status,
          new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 2)),
        ]);
        if (status) throw new Error(`the function exited (${status.code}) before answering ${url}`);
      }
    }
  } finally {
    child.kill('SIGKILL');
    await child.status;
  }
}

/**
 * A fresh function started by the stack's own code, as `npm start` starts it (spawnFacade), from the call to its
 * readiness check's first answer (GET /health, asked every 5 ms).
 */
async function startedByStack(
  version: Version,
  spawnAt: (version: Version) => ReturnType<typeof spawnFacade>,
): Promise<Start> {
  const start = performance.now();
  const running = await spawnAt(version);
  const started = { wall: performance.now() - start, cpu: cpuMs(running.pid) };
  await running.stop();
  return started;
}

async function probe(version: Version, env: Record<string, string>, postId: string): Promise<Breakdown> {
  const args = facadeArgs(version.dir, version.flags);
  args.splice(-1, 1, join(repoRoot, 'supabase', 'bench', 'cold-probe.ts'), version.dir, postId);
  const spawnedAt = performance.timeOrigin + performance.now();
  const output = await new Deno.Command(Deno.execPath(), { args, env, cwd: repoRoot, stdin: 'null', stderr: 'inherit' })
    .output();
  if (!output.success) throw new Error(`cold-probe failed for ${version.label}`);
  const { startedAt, ...parts } = JSON.parse(new TextDecoder().decode(output.stdout).trim().split('\n').at(-1)!);
  return { runtime: startedAt - spawnedAt, ...parts };
}

function report(
  versions: Version[],
  times: Map<string, Start[]>,
  breakdowns: Map<string, Breakdown[]>,
  starts: number,
  load: string,
  upload: string,
): string {
  const lines = [
    '# Cold start of the api function',
    '',
    `\`npm run bench:cold\` (supabase/bench/cold.ts), ${
      new Date().toISOString().slice(0, 16)
    } UTC, ${starts} starts per version`,
    `and target, the versions in turn round after round; medians in ms from the spawn of a fresh function process`,
    "(the stack's command line and environment) to its first answer, and the CPU time the process ran until then",
    '(all its threads); "started by the stack": started by its own code (spawnFacade), until its readiness check',
    '(GET /health, asked every 5 ms) is answered. Δ: the saving against the version above.',
    `The machine's load average (1, 5 and 15 minutes) ${load}.`,
    '',
    '| version | first GET /health | Δ | its CPU | Δ | first GET /post/:id | Δ | its CPU | Δ | started by the stack | Δ | its CPU | Δ |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  const delta = (now: number, before?: number) =>
    before === undefined ? '' : `${before >= now ? '' : '−'}${ms(Math.abs(before - now))}`;
  let previous: number[] | undefined;
  for (const version of versions) {
    const figures = [...targets, 'stack'].flatMap((target) => {
      const all = times.get(`${version.label} ${target}`)!;
      return [median(all.map((t) => t.wall)), median(all.map((t) => t.cpu))];
    });
    const cells = figures.map((figure, i) => `${ms(figure)} | ${delta(figure, previous?.[i])}`);
    lines.push(`| ${version.label} (\`${version.revision}\`) | ${cells.join(' | ')} |`);
    previous = figures;
  }
  lines.push(
    '',
    'Where the time goes (bench/cold-probe.ts, one fresh process per start, medians in ms, one step after the other,',
    "so no overlap): the runtime's own start (spawn to first line), importing the app's module graph and its CPU",
    'time, building the app, the first database connection, importing the posts route group and its CPU time (with',
    "its first request; none where the app imports every group), the first GET /post/:id (its pool's and the",
    "replica's connections) and a second, the first GET /openapi.json (the document built) and a second.",
    '',
    '| version | runtime | import | its CPU | build app | first connection | posts group | its CPU | first /post/:id | second | first /openapi.json | second |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const version of versions) {
    const all = breakdowns.get(version.label)!;
    const m = (key: keyof Breakdown) => ms(median(all.map((b) => b[key])));
    lines.push(
      `| ${version.label} | ${m('runtime')} | ${m('load')} | ${m('loadCpu')} | ${m('construct')} | ${m('connect')} | ${
        m('groupLoad')
      } | ${m('groupCpu')} | ${m('firstPost')} | ${m('secondPost')} | ${m('openapi')} | ${m('openapiAgain')} |`,
    );
  }
  lines.push('', upload, '');
  return lines.join('\n');
}

export async function coldBench(): Promise<void> {
  const starts = Math.max(1, Number(Deno.env.get('BENCH_STARTS') || 9));
  const stackProfile = profile('test', readConfig());
  const stack = await up(stackProfile);
  await step('demo network (supabase/seed.sql)', () => seed(stack.superuserUrl, join(stackProfile.dir, 'logs')));
  const postId = await queryValue(
    stack.superuserUrl,
    "select id from public.posts where privacy = 'public' order by created_at limit 1",
  );
  const databases = { primaryUrl: stack.superuserUrl, poolerUrl: stack.poolerUrl, replicaUrl: stack.replicaUrl };
  const port = stackProfile.ports.functions + 100;
  const env = { ...facadeEnv(stackProfile, stack.keys, databases), PORT: String(port) };
  const spawnAt = (version: Version) =>
    spawnFacade(stackProfile, stack.keys, databases, 'cold-start', port, join(stackProfile.dir, 'logs'), version);
  const scratch = mkdtempSync(join(tmpdir(), 'cold-start-'));
  try {
    const versions = await checkOut(Deno.env.get('BENCH_COLD_VERSIONS') || defaultVersions, scratch);
    const times = new Map<string, Start[]>();
    const breakdowns = new Map<string, Breakdown[]>(versions.map((v) => [v.label, []]));
    // One start each first, unmeasured: Deno compiles a version's modules once and caches the code.
    for (const version of versions) {
      await firstAnswer(facadeArgs(version.dir, version.flags), env, `http://127.0.0.1:${port}/api/health`);
    }
    const loadAverage = () => Deno.loadavg().map((figure) => figure.toFixed(1)).join(', ');
    const loadBefore = loadAverage();
    await step(`${starts} rounds of ${versions.length} versions`, async () => {
      for (let round = 0; round < starts; round++) {
        // Each round in another order, so no version always follows the same one.
        const order = versions.map((_, i) => versions[(i + round) % versions.length]);
        for (const version of order) {
          for (const target of targets) {
            const path = target === '/health' ? '/health' : `/post/${postId}`;
            const key = `${version.label} ${target}`;
            times.set(key, [
              ...times.get(key) ?? [],
              await firstAnswer(facadeArgs(version.dir, version.flags), env, `http://127.0.0.1:${port}/api${path}`),
            ]);
          }
          const key = `${version.label} stack`;
          times.set(key, [...times.get(key) ?? [], await startedByStack(version, spawnAt)]);
          breakdowns.get(version.label)!.push(await probe(version, env, postId));
        }
      }
    });
    const bundle = await functionBundle();
    const bytes = (match: (path: string) => boolean) =>
      bundle.files.filter((f) => match(f.path)).reduce((sum, f) => sum + f.bytes, 0);
    const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
    const upload =
      `What \`supabase functions deploy api --use-api\` uploads now (function-bundle.ts): ${bundle.files.length} files, ` +
      `${kib(bytes(() => true))}: the function's modules and import map ${
        kib(bytes((p) => p.startsWith('functions/') && !p.endsWith('.html')))
      }, ` +
      `the e-mail templates ${kib(bytes((p) => p.endsWith('.html')))}, Swagger UI's script and styles ${
        kib(bytes((p) => p.startsWith('node_modules/')))
      }; ` +
      `the platform adds ${bundle.npm.length} npm packages (${bundle.npm.map((p) => p.split('_')[0]).join(', ')}).`;
    const load = `was ${loadBefore} as the rounds began and ${loadAverage()} as they ended`;
    const text = report(versions, times, breakdowns, starts, load, upload);
    const path = join(repoRoot, 'supabase', 'bench', 'reports', 'COLD-START.md');
    await Deno.writeTextFile(path, text);
    console.log(text);
    info(`report: ${path}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
