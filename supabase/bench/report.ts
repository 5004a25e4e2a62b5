// The scale benchmark's result as one markdown document: printed at the end and written to
// .local/bench/scale-<timestamp>.md.
import { type Load, noLoad } from './load.ts';
import type { TriggerCost } from './trigger-cost.ts';
import type { PoolerReplicaResult } from './replication.ts';
import type { FacadeCostResult, FacadeCostRow } from './facade-cost.ts';
import type { GrowthResult } from './growth.ts';
import type { PlanResult } from './plans.ts';
import type { SeedStep } from './seed.ts';
import { ms, perSecond, ratio } from './stats.ts';

export interface EndpointResult {
  name: string;
  facade1: Load;
  facade16: Load;
  sql1: Load;
  sql16: Load;
  note?: string;
}

export interface RestResult {
  name: string;
  rest1: Load;
  rest16: Load;
  sql1: Load;
  sql16: Load;
  note?: string;
}

export interface FloorResult {
  page: string;
  api: Load;
  floor: Load;
}

export interface Report {
  header: string[];
  seed: SeedStep[];
  seedNote?: string;
  recount: string;
  fixtures: Record<string, number | string>;
  endpoints: EndpointResult[];
  rest: RestResult[];
  /** GET /post/:id through the facade, measured right after rpc('get_post') through PostgREST. */
  facadeGetPost: EndpointResult;
  /** The same two, straight to the function's and PostgREST's ports (no gateway). */
  getPostStraight: { facade1: Load; facade16: Load; rest1: Load; rest16: Load };
  /** Not measured when the bench stack runs no replica (above full size, or BENCH_REPLICA=off). */
  poolerReplica?: PoolerReplicaResult;
  counters: string[];
  notificationCost: TriggerCost[];
  /** The same for the triggers that count writes against the write limits. */
  writeLimitCost: TriggerCost[];
  /** The floors measured three times over. */
  floorRuns: FloorResult[][];
  floorSameJson: boolean;
  queries: Array<{ name: string; anon: string; authenticated: string }>;
  growth: GrowthResult;
  facadeCost: FacadeCostResult;
  /** The plans of the reads whose cost grows with the tables (absent in reports older than this field). */
  plans?: PlanResult[];
}

const cell = (load: Load) => [perSecond(load.perSecond), ms(load.p50), ms(load.p99)];

function failures(result: EndpointResult): string {
  const notes = [
    ['facade 1c', result.facade1],
    ['facade 16c', result.facade16],
    ['pgbench 1c', result.sql1],
    ['pgbench 16c', result.sql16],
  ].filter(([, load]) => (load as Load).failed).map(([label, load]) => `${label}: ${(load as Load).failed}`);
  return [result.note, ...notes].filter(Boolean).join('; ').replaceAll('|', '/');
}

export function markdown(r: Report): string {
  const lines = ['# Scale benchmark', '', ...r.header.map((line) => `- ${line}`), ''];
  lines.push('## Seed', '', '| step | rows | s |', '|---|---|---:|');
  for (const s of r.seed) lines.push(`| ${s.step} | ${s.rows} | ${s.seconds.toFixed(1)} |`);
  if (r.seedNote) lines.push('', r.seedNote);
  lines.push('', `\`select private.recount_counters()\`: **${r.recount}**`, '');
  lines.push(
    'Fixtures: ' +
      Object.entries(r.fixtures).map(([k, v]) => `${k} ${typeof v === 'number' ? v.toLocaleString('en') : v}`).join(
        ', ',
      ),
    '',
  );
  lines.push(
    '## Endpoints: facade (wrk through the gateway) and the same SQL function (pgbench)',
    '',
    'req/s (or tps), p50 and p99 in ms; 1c and 16c = 1 and 16 connections; ratio = facade req/s ÷ pgbench tps.',
    '',
    '| endpoint | facade 1c req/s | p50 | p99 | facade 16c req/s | p50 | p99 | pgbench 1c tps | p50 | p99 | pgbench 16c tps | p50 | p99 | ratio 1c | ratio 16c | notes |',
    '|---|' + '---:|'.repeat(14) + '---|',
  );
  for (const e of r.endpoints) {
    lines.push(
      `| ${e.name} | ${[...cell(e.facade1), ...cell(e.facade16), ...cell(e.sql1), ...cell(e.sql16)].join(' | ')} | ` +
        `${ratio(e.facade1.perSecond, e.sql1.perSecond)} | ${ratio(e.facade16.perSecond, e.sql16.perSecond)} | ${
          failures(e)
        } |`,
    );
  }
  lines.push(
    '',
    "## supabase-js through PostgREST (wrk through the gateway's /rest/v1) and PostgREST's SQL alone (pgbench)",
    '',
    "Each request as supabase-js sends it (`apikey`, the caller's token); pgbench runs the statement PostgREST 12 builds for it, " +
      'after the same per-request settings. ratio = PostgREST req/s ÷ pgbench tps (the goal: at least ×0.80).',
    '',
    '| request | PostgREST 1c req/s | p50 | p99 | PostgREST 16c req/s | p50 | p99 | pgbench 1c tps | p50 | p99 | pgbench 16c tps | p50 | p99 | ratio 1c | ratio 16c | notes |',
    '|---|' + '---:|'.repeat(14) + '---|',
  );
  for (const e of r.rest) {
    const notes = [
      e.note,
      ...[['PostgREST 1c', e.rest1], ['PostgREST 16c', e.rest16], ['pgbench 1c', e.sql1], ['pgbench 16c', e.sql16]]
        .filter(([, load]) => (load as Load).failed).map(([label, load]) => `${label}: ${(load as Load).failed}`),
    ].filter(Boolean).join('; ');
    lines.push(
      `| ${e.name} | ${[...cell(e.rest1), ...cell(e.rest16), ...cell(e.sql1), ...cell(e.sql16)].join(' | ')} | ` +
        `${ratio(e.rest1.perSecond, e.sql1.perSecond)} | ${ratio(e.rest16.perSecond, e.sql16.perSecond)} | ${
          notes.replaceAll('|', '/')
        } |`,
    );
  }
  const getPost = r.rest.find((e) => e.name === "rpc('get_post')");
  if (getPost) {
    const f = r.facadeGetPost;
    lines.push(
      '',
      'The facade beside PostgREST on the same SQL function, measured one after the other: GET /post/:id (facade) and ' +
        "rpc('get_post') (PostgREST), as the reader. ratio = facade req/s ÷ PostgREST req/s.",
      '',
      '| | 1c req/s | p50 | p99 | 16c req/s | p50 | p99 |',
      '|---|' + '---:|'.repeat(6),
      `| facade GET /post/:id | ${[...cell(f.facade1), ...cell(f.facade16)].join(' | ')} |`,
      `| PostgREST rpc('get_post') | ${[...cell(getPost.rest1), ...cell(getPost.rest16)].join(' | ')} |`,
      `| ratio | ${ratio(f.facade1.perSecond, getPost.rest1.perSecond)} | | | ${
        ratio(f.facade16.perSecond, getPost.rest16.perSecond)
      } | | |`,
      `| facade GET /post/:id, straight to its port | ${
        [...cell(r.getPostStraight.facade1), ...cell(r.getPostStraight.facade16)].join(' | ')
      } |`,
      `| PostgREST rpc('get_post'), straight to its port | ${
        [...cell(r.getPostStraight.rest1), ...cell(r.getPostStraight.rest16)].join(' | ')
      } |`,
      `| ratio, straight | ${ratio(r.getPostStraight.facade1.perSecond, r.getPostStraight.rest1.perSecond)} | | | ` +
        `${ratio(r.getPostStraight.facade16.perSecond, r.getPostStraight.rest16.perSecond)} | | |`,
    );
  }
  lines.push(...facadeCostLines(r.facadeCost));
  if (r.poolerReplica) lines.push(...poolerReplicaLines(r.poolerReplica));
  else {lines.push(
      '',
      '## The pooler and the read replica',
      '',
      "Not measured: this run's stack had no read replica (BENCH_REPLICA).",
    );}
  lines.push('', 'Counters after the concurrent writes:', '', ...r.counters.map((line) => `- ${line}`), '');
  lines.push(
    '## What notifying costs the write paths (pgbench)',
    '',
    'tps of each turn with the notification and mention triggers disabled (off) and enabled (on), in turns off, on, off, on; ' +
      'kept = mean on ÷ mean off (the target: at least ×0.80).',
    '',
    '| endpoint | clients | off tps | on tps | kept |',
    '|---|---:|---:|---:|---:|',
  );
  lines.push(...triggerCostRows(r.notificationCost));
  lines.push(
    '',
    '## What the write limits cost the write paths (pgbench)',
    '',
    'The same, with the triggers that count each write against its limit (`count_write`) disabled and enabled; the limits ' +
      'are raised out of reach for the run, so every write is counted and none refused. kept = mean on ÷ mean off.',
    '',
    '| endpoint | clients | off tps | on tps | kept |',
    '|---|---:|---:|---:|---:|',
    ...triggerCostRows(r.writeLimitCost),
  );
  lines.push('');
  lines.push(
    '## Set-based floors of the user-posts page and the feed (pgbench, as the reader)',
    '',
    `Each floor returns ${
      r.floorSameJson ? 'the same JSON as' : '**NOT the same JSON as**'
    } its API function (public.user_posts, public.feed). ` +
      "ratio = floor p50 ÷ API function p50 (the share of the floor's speed the API keeps; the goal for user_posts: at least ×0.80). " +
      'Each pair runs side by side in one pgbench run, one client each. ' +
      'The first run in full, then the ratio of each of the three runs.',
    '',
    '| list, page | API 1c tps | p50 | p99 | floor 1c tps | p50 | p99 | ratio p50 | runs 1, 2, 3 | notes |',
    '|---|' + '---:|'.repeat(8) + '---|',
  );
  r.floorRuns[0].forEach((f, i) => {
    const notes = [f.api.failed && `API: ${f.api.failed}`, f.floor.failed && `floor: ${f.floor.failed}`].filter(Boolean)
      .join('; ');
    const runs = r.floorRuns.map((run) => ratio(run[i].floor.p50, run[i].api.p50)).join(', ');
    lines.push(
      `| ${f.page} | ${[...cell(f.api), ...cell(f.floor)].join(' | ')} | ${
        ratio(f.floor.p50, f.api.p50)
      } | ${runs} | ${notes} |`,
    );
  });
  lines.push(
    '',
    '## supabase-js-shaped queries (row-level security on every row read)',
    '',
    "Median ms of several runs in a transaction as PostgREST runs it, with the role's statement timeout.",
    '',
    '| query | anon ms | authenticated ms |',
    '|---|---:|---:|',
    ...r.queries.map((q) => `| ${q.name} | ${q.anon} | ${q.authenticated} |`),
    ...growthLines(r.growth),
    '',
    ...planLines(r.plans ?? []),
  );
  return lines.join('\n');
}

function planLines(plans: PlanResult[]): string[] {
  if (!plans.length) return [];
  const lines = [
    '## Plans of the reads that grow with the tables (EXPLAIN ANALYZE BUFFERS, nested statements too, as the reader)',
    '',
  ];
  for (const read of plans) lines.push(`### ${read.name}`, '', '```text', ...read.plans, '```', '');
  return lines;
}

function poolerReplicaLines(p: PoolerReplicaResult): string[] {
  const lines = [
    '',
    "## The pooler and the read replica (wrk straight to each facade's port, as the reader)",
    '',
    'direct: a facade reaching Postgres itself; pooled: through PgBouncer (transaction mode), every read on the primary; ' +
    "replica: the stack's facade, through PgBouncer, reading from the replica (a signed-in read asks the primary for the " +
    "session check and the caller's write count first). replica share = the replica's part of the transactions both " +
    'servers ran during the replica run. pooled ÷ direct: the goal is at least ×0.90.',
    '',
    '| read | conn | direct req/s | p50 | p99 | pooled req/s | p50 | p99 | replica req/s | p50 | p99 | pooled ÷ direct | replica ÷ pooled | replica share |',
    '|---|' + '---:|'.repeat(13),
  ];
  for (const row of p.rows) {
    lines.push(
      `| ${row.name} | ${row.connections} | ${
        [...cell(row.direct), ...cell(row.pooled), ...cell(row.replica)].join(' | ')
      } | ` +
        `${ratio(row.pooled.perSecond, row.direct.perSecond)} | ${
          ratio(row.replica.perSecond, row.pooled.perSecond)
        } | ${(row.replicaShare * 100).toFixed(0)} % |`,
    );
  }
  const lag = p.lag;
  lines.push(
    '',
    `The replica's replay lag while the write endpoints ran through the stack's facade (${lag.samples} samples of ` +
      '`pg_stat_replication` every 50 ms): ' +
      `p50 ${ms(lag.p50)} ms, p99 ${ms(lag.p99)} ms, max ${ms(lag.max)} ms; WAL not yet replayed p50 ${
        lag.bytesP50.toFixed(0)
      } B, p99 ${lag.bytesP99.toFixed(0)} B.`,
    '',
    "What a signed-in read on a replica still costs the primary (the session check and the caller's write count), " +
      "beside each read's own SQL, with pgbench at 16 clients on the primary (tps, p50 ms): the primary can check " +
      '"check tps" reads a second while the replicas run them.',
    '',
    '| statement | tps | p50 | p99 |',
    '|---|---:|---:|---:|',
    `| the primary's check | ${cell(p.primaryCheck).join(' | ')} |`,
    ...p.readSql.map((read) => `| ${read.name}: its SQL | ${cell(read.load).join(' | ')} |`),
  );
  return lines;
}

function facadeCostLines(f: FacadeCostResult): string[] {
  const lines = [
    '',
    "## The facade's own cost (wrk through the gateway, straight to the function, and pgbench with the facade's text)",
    '',
    'pgbench sends the text the facade sends for the read, as one message (request quota, role settings, role and claims, ' +
    'session check, statement), with as many clients as wrk has connections. ratio = facade req/s ÷ pgbench tps (the goal: at ' +
    'least ×0.85); p99 ÷ p50 of the facade (the goal at 64: at most 4); quota = pgbench tps with the request quota ÷ without ' +
    '(what the request limits cost a read in the database; they add no round trip); pooled = pgbench through the pooler, the ' +
    "facade's way to the database, and pooled ratio = facade req/s ÷ its tps (the facade's share without the pooler's).",
    '',
    '| read | conn | facade req/s | p50 | p99 | straight req/s | p50 | p99 | pgbench tps | p50 | p99 | pooled tps | p50 | p99 | ' +
    'without quota tps | p50 | p99 | ratio | straight ratio | pooled ratio | facade p99 ÷ p50 | quota |',
    '|---|' + '---:|'.repeat(21),
  ];
  const none = noLoad('not measured: no pooler');
  for (const row of f.rows) {
    const pooled = row.sqlThroughPooler ?? none;
    lines.push(
      `| ${row.name} | ${row.connections} | ${
        [...cell(row.facade), ...cell(row.straight), ...cell(row.sql), ...cell(pooled), ...cell(row.sqlWithoutQuota)]
          .join(' | ')
      } | ` +
        `${ratio(row.facade.perSecond, row.sql.perSecond)} | ${ratio(row.straight.perSecond, row.sql.perSecond)} | ${
          ratio(row.facade.perSecond, pooled.perSecond)
        } | ` +
        `${ratio(row.facade.p99, row.facade.p50)} | ${ratio(row.sql.perSecond, row.sqlWithoutQuota.perSecond)} |`,
    );
  }
  lines.push(...cpuLines(f.rows, f.seconds), ...apartLines(f.rows));
  lines.push(
    '',
    'A request answered before any database work (GET /post/not-an-id: 400 after the token check, routing and validation):',
    '',
    '| conn | through the gateway req/s | p50 | p99 | straight req/s | p50 | p99 |',
    '|---:|' + '---:|'.repeat(6),
    ...f.noDatabase.map((n) => `| ${n.connections} | ${[...cell(n.load), ...cell(n.straight)].join(' | ')} |`),
    '',
    'The text pgbench sent for the first read:',
    '',
    '```sql',
    f.sample.replaceAll('\\; ', ';\n'),
    '```',
  );
  return lines;
}

function cpuLines(rows: FacadeCostRow[], seconds: number): string[] {
  // µs of CPU per request: seconds of CPU over the requests a run completed.
  const each = (cpu: number, load: Load) => cpu / (load.perSecond * seconds) * 1e6;
  const us = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : '–');
  return [
    '',
    "Where a request's CPU time goes (µs of CPU per request, from /proc, through the gateway; the machine's total " +
    "includes the load generator and whatever else ran). On shared cores the facade's ratio to pgbench cannot " +
    "exceed pgbench's CPU per transaction ÷ the facade's per request (the bound).",
    '',
    '| read | conn | pgbench: machine | facade: machine | Postgres | function | gateway | pooler | bound |',
    '|---|' + '---:|'.repeat(8),
    ...rows.map(({ name, connections, facade, facadeCpu, sql, sqlCpu }) => {
      const [sqlMachine, facadeMachine] = [each(sqlCpu.machine, sql), each(facadeCpu.machine, facade)];
      const parts = [facadeCpu.postgres, facadeCpu.functions, facadeCpu.gateway, facadeCpu.pgbouncer].map((cpu) =>
        us(each(cpu, facade))
      );
      return `| ${name} | ${connections} | ${us(sqlMachine)} | ${us(facadeMachine)} | ${parts.join(' | ')} | ${
        ratio(sqlMachine, facadeMachine)
      } |`;
    }),
  ];
}

function apartLines(rows: FacadeCostRow[]): string[] {
  const apart = rows.filter((row) => row.apart);
  if (!apart.length) return [];
  return [
    '',
    'With Postgres alone on the first core and the rest of the stack and the load generators on the others (the layout ' +
    'of a hosted project, where the function and the gateway are on other machines than the database), through the gateway:',
    '',
    '| read | conn | facade req/s | p50 | p99 | pgbench tps | p50 | p99 | ratio |',
    '|---|' + '---:|'.repeat(8),
    ...apart.map(({ name, connections, apart }) =>
      `| ${name} | ${connections} | ${[...cell(apart!.facade), ...cell(apart!.sql)].join(' | ')} | ${
        ratio(apart!.facade.perSecond, apart!.sql.perSecond)
      } |`
    ),
  ];
}

function growthLines(g: GrowthResult): string[] {
  return [
    '',
    "## Growth targets' own cases",
    '',
    '| case | 1c tps | p50 ms | p99 ms | notes |',
    '|---|---:|---:|---:|---|',
    ...g.feeds.map((f) => `| ${f.name} | ${cell(f.load).join(' | ')} | ${f.load.failed ?? ''} |`),
    '',
    `Deleting an account (${g.deletion.what}) as Supabase Auth does, \`delete from auth.users\`, rolled back: ` +
    `median **${ms(g.deletion.ms)} ms** of ${g.deletion.runs}.`,
    '',
    `A post by one account (root, \`insert into public.posts\`, rolled back; median of ${g.post.runs}): ` +
    `**${ms(g.post.before.ms)} ms** raising the feed sources of its ${g.post.before.rows} followers, ` +
    `**${
      ms(g.post.after.ms)
    } ms** raising ${g.post.after.rows} once up to 1,000 more follow it (each in its own transaction).`,
  ];
}

function triggerCostRows(costs: TriggerCost[]): string[] {
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  return costs.map((n) =>
    `| ${n.name} | ${n.clients} | ${n.off.map(perSecond).join(', ')} | ${n.on.map(perSecond).join(', ')} | ${
      ratio(mean(n.on), mean(n.off))
    } |`
  );
}
