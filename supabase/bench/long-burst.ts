// `npm run bench:writes -- --keep --long`: whether a target that stays hot gets slower (issue 55). Round after round,
// the same writers toggle post likes and write comments on the hot post, then each on its own post, through pgbench
// of the same SQL as the writes benchmark; each round prints the hot ÷ spread rate and p99, and how many entries of
// `posts_pkey` each write read (a hot row's dead versions whose index entries no scan could mark dead showed there:
// supabase/bench/reports/WRITES-1M.md, "A hot post after a long burst"), with when autovacuum last took `posts`.
import type postgres from 'postgres';
import type { Load } from './load.ts';
import { median, ms, perSecond, ratio } from './stats.ts';
import type { Target } from './write-targets.ts';

/** A kind of write, and a run of it by every caller on the hot target or each on its own. */
export interface BurstKind {
  name: string;
  run: (target: Target) => Promise<Load>;
}

interface Run {
  load: Load;
  /** Entries of posts_pkey read per write, over the run and its warm-up (about: the rate is the run's). */
  entriesPerWrite: number;
}

/** `rounds` rounds of every kind, hot then spread; `runSeconds` is a run's length with its warm-up. */
export async function longBurst(
  root: postgres.Sql,
  hotPost: string,
  kinds: BurstKind[],
  rounds: number,
  runSeconds: number,
): Promise<string> {
  const entriesRead = async () => {
    await root`select pg_stat_force_next_flush()`;
    const [row] = await root`
      select idx_tup_read::bigint as n from pg_stat_all_indexes where indexrelid = 'public.posts_pkey'::regclass`;
    return Number(row.n);
  };
  const measure = async (kind: BurstKind, target: Target): Promise<Run> => {
    const before = await entriesRead();
    const load = await kind.run(target);
    // The statistics of the run's sessions reach the shared counters when they end.
    await new Promise((resolve) => setTimeout(resolve, 600));
    return { load, entriesPerWrite: (await entriesRead() - before) / (load.perSecond * runSeconds) };
  };
  const lines = [
    `Long burst: ${rounds} rounds, each kind on the hot post then on spread posts (pgbench, ${runSeconds} s a run ` +
    'with its warm-up); posts_pkey entries read per write, about.',
    '',
    '| round | write | hot writes/s | spread writes/s | hot ÷ spread | hot p99 ms | spread p99 ms | p99 hot ÷ spread | posts_pkey per hot write | per spread write | hot post comments | posts last autovacuum |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  const ratios = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    for (const kind of kinds) {
      const hot = await measure(kind, 'hot');
      const spread = await measure(kind, 'spread');
      const [state] = await root`
        select p.comments_count, (select to_char(s.last_autovacuum at time zone 'UTC', 'HH24:MI:SS')
          from pg_stat_all_tables s where s.relid = 'public.posts'::regclass) as vacuumed
        from public.posts p where p.id = ${hotPost}`;
      ratios.set(kind.name, [...ratios.get(kind.name) ?? [], hot.load.perSecond / spread.load.perSecond]);
      lines.push(
        `| ${round} | ${kind.name} | ${perSecond(hot.load.perSecond)} | ${perSecond(spread.load.perSecond)} | ` +
          `${ratio(hot.load.perSecond, spread.load.perSecond)} | ${ms(hot.load.p99)} | ${ms(spread.load.p99)} | ` +
          `${ratio(hot.load.p99, spread.load.p99)} | ${hot.entriesPerWrite.toFixed(0)} | ` +
          `${spread.entriesPerWrite.toFixed(0)} | ${state.comments_count} | ${state.vacuumed ?? 'never'} |`,
      );
    }
  }
  lines.push('');
  for (const [name, values] of ratios) {
    lines.push(
      `${name}: hot ÷ spread rate median ×${median(values).toFixed(2)}, lowest ×${Math.min(...values).toFixed(2)}, ` +
        `${values.filter((value) => value >= 0.9).length} of ${values.length} rounds ≥ ×0.9`,
    );
  }
  return lines.join('\n');
}
