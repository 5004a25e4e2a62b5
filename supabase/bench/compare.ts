// `npm run bench:compare -- <small.json> <large.json>`: two runs of the scale benchmark (the .json beside each
// report) side by side, each figure at the smaller scale beside the same figure at the larger, with the growth
// targets of issue 21: a read's p50 within ×1.3 of the smaller scale's, supabase-js-shaped queries under 20 ms,
// the feeds under 50 ms, an account deleted in under 2 s, the recount under 10 minutes, the facade at least ×0.85
// of pgbench with its p99 at most 4 × its p50 at 64 connections, user_posts at least ×0.8 of its floor.
import type { Load } from './load.ts';
import type { Report } from './report.ts';
import { ms, ratio } from './stats.ts';

type Run = Report & { scale: number };

const verdict = (ok: boolean) => (ok ? 'yes' : '**no**');

/** p50 at both scales, their ratio, and whether it holds the growth target. */
function growthRow(name: string, small: Load | undefined, large: Load | undefined, limit = 1.3): string {
  const grown = small && large ? large.p50 / small.p50 : NaN;
  return `| ${name} | ${ms(small?.p50 ?? NaN)} | ${ms(large?.p50 ?? NaN)} | ${
    ratio(large?.p50 ?? NaN, small?.p50 ?? NaN)
  } | ` +
    `${Number.isFinite(grown) ? verdict(grown <= limit) : '–'} |`;
}

function under(value: number, limit: number): string {
  return Number.isFinite(value) ? verdict(value < limit) : '–';
}

export function compare(small: Run, large: Run): string {
  const label = (run: Run) => `${run.scale === 1 ? '1 M' : `${run.scale} M`} posts`;
  const [a, b] = [label(small), label(large)];
  const lines = [
    `# Scale benchmark: ${a} beside ${b}`,
    '',
    `- ${a}: ${small.header.filter((line) => /^(started|git|machine)/.test(line)).join('; ')}`,
    `- ${b}: ${large.header.filter((line) => /^(started|git|machine)/.test(line)).join('; ')}`,
    '',
    '## Seed',
    '',
    `| step | ${a} s | ${b} s | rows at ${b} |`,
    '|---|---:|---:|---|',
    ...large.seed.map((step) => {
      const before = small.seed.find((s) => s.step === step.step);
      return `| ${step.step} | ${before ? before.seconds.toFixed(1) : '–'} | ${
        step.seconds.toFixed(1)
      } | ${step.rows} |`;
    }),
    `| **total** | ${small.seed.reduce((t, s) => t + s.seconds, 0).toFixed(0)} | ${
      large.seed.reduce((t, s) => t + s.seconds, 0).toFixed(0)
    } | |`,
    '',
    `Counter recount: ${a} ${small.recount}; ${b} ${large.recount} (target: under 10 minutes).`,
    '',
    '## Each API read: the SQL function alone (pgbench, 1 client, p50 ms)',
    '',
    `Target: at ${b} within ×1.3 of ${a}.`,
    '',
    `| read | ${a} | ${b} | growth | within ×1.3 |`,
    '|---|---:|---:|---:|---|',
  ];
  for (const endpoint of large.endpoints.filter((e) => e.name.startsWith('GET'))) {
    lines.push(growthRow(endpoint.name, small.endpoints.find((e) => e.name === endpoint.name)?.sql1, endpoint.sql1));
  }
  lines.push(
    '',
    '## The same reads through the facade (wrk, 1 connection, p50 ms)',
    '',
    `| read | ${a} | ${b} | growth | within ×1.3 |`,
    '|---|---:|---:|---:|---|',
  );
  for (const endpoint of large.endpoints.filter((e) => e.name.startsWith('GET'))) {
    lines.push(
      growthRow(endpoint.name, small.endpoints.find((e) => e.name === endpoint.name)?.facade1, endpoint.facade1),
    );
  }
  lines.push(
    '',
    '## supabase-js through PostgREST: the SQL PostgREST builds (pgbench, 1 client, p50 ms)',
    '',
    `| request | ${a} | ${b} | growth | within ×1.3 |`,
    '|---|---:|---:|---:|---|',
    ...large.rest.map((one) => growthRow(one.name, small.rest.find((r) => r.name === one.name)?.sql1, one.sql1)),
    '',
    '## supabase-js-shaped queries on the tables (median ms)',
    '',
    `Target: under 20 ms at ${b}.`,
    '',
    `| query | anon ${a} | anon ${b} | signed in ${a} | signed in ${b} | under 20 ms |`,
    '|---|---:|---:|---:|---:|---|',
    ...large.queries.map((q) => {
      const before = small.queries.find((s) => s.name === q.name);
      return `| ${q.name} | ${before?.anon ?? '–'} | ${q.anon} | ${
        before?.authenticated ?? '–'
      } | ${q.authenticated} | ` +
        `${under(Math.max(Number(q.anon), Number(q.authenticated)), 20)} |`;
    }),
    '',
    '## The feeds and deleting an account',
    '',
    `| case | ${a} | ${b} | target | met at ${b} |`,
    '|---|---:|---:|---:|---|',
    ...large.growth.feeds.map((feed) => {
      const before = small.growth.feeds.find((f) => f.name === feed.name);
      return `| ${feed.name} (p50 ms) | ${ms(before?.load.p50 ?? NaN)} | ${ms(feed.load.p50)} | < 50 | ${
        under(feed.load.p50, 50)
      } |`;
    }),
    `| deleting an account: ${large.growth.deletion.what} (ms) | ${ms(small.growth.deletion.ms)} | ${
      ms(large.growth.deletion.ms)
    } | < 2000 | ` +
      `${under(large.growth.deletion.ms, 2000)} |`,
    '',
    "## The facade's own cost (req/s ÷ pgbench tps of the facade's text; p99 ÷ p50)",
    '',
    'Apart: Postgres alone on a core, the rest of the stack on the others (8 connections; reports since 2026-11-26 evening).',
    '',
    `| read | conn | ratio ${a} | ratio ${b} | at least ×0.85 at ${b} | apart ${a} | apart ${b} | p99 ÷ p50 ${a} | p99 ÷ p50 ${b} |`,
    '|---|---:|---:|---:|---|---:|---:|---:|---:|',
    ...large.facadeCost.rows.map((row) => {
      const before = small.facadeCost.rows.find((r) => r.name === row.name && r.connections === row.connections);
      const share = (r?: typeof row) => (r ? r.facade.perSecond / r.sql.perSecond : NaN);
      const apart = (r?: typeof row) => (r?.apart ? r.apart.facade.perSecond / r.apart.sql.perSecond : NaN);
      return `| ${row.name} | ${row.connections} | ${ratio(share(before), 1)} | ${ratio(share(row), 1)} | ${
        under(-share(row), -0.85)
      } | ` +
        `${ratio(apart(before), 1)} | ${ratio(apart(row), 1)} | ` +
        `${ratio(before?.facade.p99 ?? NaN, before?.facade.p50 ?? NaN)} | ${ratio(row.facade.p99, row.facade.p50)} |`;
    }),
    '',
    '## user_posts against its floor (floor p50 ÷ API p50, three runs)',
    '',
    `| page | ${a} | ${b} | at least ×0.8 in every run at ${b} |`,
    '|---|---|---|---|',
    ...large.floorRuns[0].filter((f) => f.page.startsWith('user_posts')).map((f) => {
      const runs = (run: Run) =>
        run.floorRuns.map((r) => r.find((x) => x.page === f.page)).filter(Boolean) as typeof run.floorRuns[0];
      const text = (run: Run) => runs(run).map((x) => ratio(x.floor.p50, x.api.p50)).join(', ');
      return `| ${f.page} | ${text(small)} | ${text(large)} | ${
        verdict(runs(large).every((x) => x.floor.p50 / x.api.p50 >= 0.8))
      } |`;
    }),
    '',
  );
  return lines.join('\n');
}

export async function compareReports(args: string[]): Promise<void> {
  if (args.length !== 2) throw new Error("bench:compare takes two files: the smaller scale's .json, then the larger's");
  const [small, large] = await Promise.all(args.map(async (file) => JSON.parse(await Deno.readTextFile(file)) as Run));
  console.log(compare(small, large));
}
