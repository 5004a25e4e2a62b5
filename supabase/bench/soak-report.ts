// The soak's report as markdown: the goals of issue 42 checked (PASS or MISS, with the figures), then each
// operation per window (requests, p50, p99, answers that were not 2xx by status), and the samples per window
// (the function's memory, the replica's lag, the pooler's waiting clients, the hot tables' dead tuples).
import type { Recorder, Tally } from './soak-load.ts';
import type { CollectionSample, MemorySample, Samples, TableSample } from './soak-samples.ts';
import { ms, percentile } from './stats.ts';

/** A window's p99 may be this much above the first window's (issue 42). */
const p99Growth = 1.25;
/** The last window's memory may be this much above the reference mark's. */
const memoryGrowth = 1.1;
/** The reference mark for memory: ten minutes in, or half way through a shorter run. */
const memoryMarkMs = 10 * 60_000;
/** Twice autovacuum_naptime's default: autovacuum looks at each database once a naptime, then takes the table. */
const autovacuumGraceMs = 2 * 60_000;
/** Fewer requests than this in a window give a p99 that says nothing. */
const fewest = 50;

export interface SoakReport {
  title: string;
  header: string[];
  recorder: Recorder;
  samples: Samples;
  windowMs: number;
  durationMs: number;
  /** The facade's staleness bound (DB_REPLICA_MAX_LAG_MS). */
  maxLagMs: number;
  /** What the load accounts left behind, and the hot tables' rows before and after. */
  leftovers: string[];
}

const count = (n: number) => n.toLocaleString('en');
const isError = (status: number) => status === 0 || status >= 500;
const isOk = (status: number) => status >= 200 && status < 300;

function merge(tallies: Tally[]): Tally {
  const merged: Tally = { latencies: [], statuses: new Map(), examples: new Map() };
  for (const tally of tallies) {
    merged.latencies.push(...tally.latencies);
    for (const [status, n] of tally.statuses) merged.statuses.set(status, (merged.statuses.get(status) ?? 0) + n);
    for (const [status, text] of tally.examples) if (!merged.examples.has(status)) merged.examples.set(status, text);
  }
  return merged;
}

function notOk(tally: Tally): string {
  const rows = [...tally.statuses].filter(([status]) => !isOk(status)).sort(([a], [b]) => a - b);
  return rows.map(([status, n]) => `${status || 'no answer'}: ${count(n)}`).join(', ') || '–';
}

function operationRow(name: string, tally: Tally | undefined): string {
  if (!tally) return `| ${name} | 0 | – | – | – |`;
  const p50 = percentile(tally.latencies, 50);
  const p99 = percentile(tally.latencies, 99);
  return `| ${name} | ${count(tally.latencies.length)} | ${ms(p50)} | ${ms(p99)} | ${notOk(tally)} |`;
}

const minuteFigure = (msValue: number) => String(Math.round(msValue / 6_000) / 10);
const minutes = (msValue: number) => `${minuteFigure(msValue)} min`;

interface Goal {
  goal: string;
  figure: string;
  pass: boolean;
}

function errorsGoal(operations: string[], whole: Map<string, Tally>): Goal {
  const failing = operations.map((name) => {
    const n = [...whole.get(name)!.statuses].filter(([status]) => isError(status)).reduce((sum, [, k]) => sum + k, 0);
    return { name, n };
  }).filter((row) => row.n > 0);
  const total = failing.reduce((sum, row) => sum + row.n, 0);
  return {
    goal: 'no 5xx (nor a request without answer)',
    figure: total ? `${count(total)}: ${failing.map((row) => `${row.name} ${count(row.n)}`).join('; ')}` : '0',
    pass: total === 0,
  };
}

function p99Rows(r: SoakReport, operations: string[]): { rows: string[]; goal: Goal } {
  const first = r.recorder.windows[0];
  const last = r.recorder.windows[r.recorder.windows.length - 1];
  const missed: string[] = [];
  let judged = 0;
  const rows = operations.map((name) => {
    const a = first.get(name)?.latencies ?? [];
    const b = last.get(name)?.latencies ?? [];
    if (a.length < fewest || b.length < fewest) {
      return `| ${name} | ${count(a.length)} / ${count(b.length)} | ${ms(percentile(a, 99))} | ${
        ms(percentile(b, 99))
      } | – | too few requests to judge |`;
    }
    judged++;
    const growth = percentile(b, 99) / percentile(a, 99);
    if (growth > p99Growth) missed.push(`${name} ×${growth.toFixed(2)}`);
    return `| ${name} | ${count(a.length)} / ${count(b.length)} | ${ms(percentile(a, 99))} | ${
      ms(percentile(b, 99))
    } | ×${growth.toFixed(2)} | ${growth > p99Growth ? 'MISS' : 'PASS'} |`;
  });
  return {
    rows,
    goal: {
      goal: `each operation's p99 in the last window within ×${p99Growth} of the first`,
      figure: `${judged} operations judged (≥ ${fewest} requests in both windows), ${missed.length} above: ${
        missed.join(', ') || 'none'
      }`,
      pass: missed.length === 0 && judged > 0,
    },
  };
}

/** The lowest and the largest RSS among `samples` (at least one). */
function rssRange(samples: MemorySample[]): { lowest: number; largest: number } {
  const rss = samples.map((m) => m.rssMiB);
  return { lowest: Math.min(...rss), largest: Math.max(...rss) };
}

const rssLabel = ({ lowest, largest }: { lowest: number; largest: number }) =>
  `${lowest.toFixed(0)}–${largest.toFixed(0)}`;

/** What the full collections among `collections` left alive, lowest–largest, and how many there were. */
const liveLabel = (collections: CollectionSample[]) => {
  if (!collections.length) return '–';
  const live = collections.map((c) => c.liveMiB);
  return `${Math.min(...live).toFixed(1)}–${Math.max(...live).toFixed(1)} (${collections.length})`;
};

/**
 * The function's memory rises and falls with garbage collection (a sawtooth of some 50 MiB): the last window is
 * compared with the window that starts at the mark, peak with peak and trough with trough, so that neither figure
 * depends on where in the sawtooth one sample fell. A leak lifts the troughs: what a collection cannot free.
 */
function memoryGoal(r: SoakReport): Goal {
  const { memory } = r.samples;
  const markMs = Math.min(memoryMarkMs, r.durationMs / 2);
  const lastWindowStart = (r.recorder.windows.length - 1) * r.windowMs;
  const inMark = (s: { at: number }) => s.at >= markMs && s.at < markMs + r.windowMs;
  const inLast = (s: { at: number }) => s.at >= lastWindowStart;
  const [markWindow, lastWindow] = [memory.filter(inMark), memory.filter(inLast)];
  const pids = new Set(memory.map((m) => m.pid));
  if (!markWindow.length || !lastWindow.length) return { goal: 'memory flat', figure: 'not sampled', pass: false };
  const [mark, last] = [rssRange(markWindow), rssRange(lastWindow)];
  const { collections } = r.samples;
  const live = `; V8 heap alive after full collections ${liveLabel(collections.filter(inMark))} MiB from ${
    minutes(markMs)
  }, ${liveLabel(collections.filter(inLast))} in the last window`;
  const restarts = pids.size > 1 ? `; the function was restarted (${pids.size} processes)` : '';
  return {
    goal: `the function's memory flat after ${minutes(markMs)}: the last window's largest and lowest RSS each ` +
      `within ×${memoryGrowth} of those in the ${minutes(r.windowMs)} from ${minutes(markMs)}`,
    figure: `${rssLabel(mark)} MiB from ${minutes(markMs)}, ${rssLabel(last)} MiB in the last window (largest ×` +
      `${(last.largest / mark.largest).toFixed(2)}, lowest ×${
        (last.lowest / mark.lowest).toFixed(2)
      })${live}${restarts}`,
    pass: last.largest <= mark.largest * memoryGrowth && last.lowest <= mark.lowest * memoryGrowth &&
      pids.size === 1,
  };
}

/** Each table's largest dead-tuple count among the samples of a window, and the autovacuum runs in it. */
interface TablePeak {
  dead: number;
  runs: number;
  threshold: number;
  live: number;
  lastAutovacuum: string | null;
}

function windowPeaks(r: SoakReport, index: number): Map<string, TablePeak> {
  const from = index * r.windowMs;
  const last = index === r.recorder.windows.length - 1;
  const within = r.samples.tables.filter((s) => s.at >= from && (last || s.at < from + r.windowMs));
  // Runs are counted from the last sample before the window (the run's first sample, for the first window).
  const before = new Map<string, TableSample>();
  for (const s of r.samples.tables) if (s.at < from || (index === 0 && !before.has(s.table))) before.set(s.table, s);
  const peaks = new Map<string, TablePeak>();
  for (const s of within) {
    const peak = peaks.get(s.table);
    const runs = s.autovacuums - (before.get(s.table)?.autovacuums ?? s.autovacuums);
    peaks.set(s.table, {
      dead: Math.max(peak?.dead ?? 0, s.dead),
      runs,
      threshold: s.threshold,
      live: s.live,
      lastAutovacuum: s.lastAutovacuum,
    });
  }
  return peaks;
}

/** How long a table has been past its autovacuum threshold, with no autovacuum run since, at the last sample. */
function pastThresholdFor(samples: TableSample[], table: string): number {
  let since: number | undefined;
  let previous: TableSample | undefined;
  for (const s of samples.filter((one) => one.table === table)) {
    const ran = previous !== undefined && s.autovacuums > previous.autovacuums;
    if (s.dead <= s.threshold || ran) since = undefined;
    else since ??= s.at;
    previous = s;
  }
  return since === undefined || !previous ? 0 : previous.at - since;
}

function autovacuumGoal(r: SoakReport): Goal {
  const peaks = r.recorder.windows.map((_, index) => windowPeaks(r, index));
  const last = peaks[peaks.length - 1];
  // Behind: past its threshold longer than autovacuum takes to come (it looks every autovacuum_naptime), or
  // autovacuumed and still past it with peaks that rose window after window all run long (runs that clean too little).
  const behind = [...last].filter(([table, peak]) => {
    const rising = peaks.length > 1 &&
      peaks.every((window, index) =>
        index === 0 || (window.get(table)?.dead ?? 0) > (peaks[index - 1].get(table)?.dead ?? 0)
      );
    return pastThresholdFor(r.samples.tables, table) > autovacuumGraceMs ||
      (peak.dead > peak.threshold && peak.runs > 0 && rising);
  });
  return {
    goal: `autovacuum keeping up: no hot table past its autovacuum threshold for over ${
      minutes(autovacuumGraceMs)
    } without a run, nor autovacuumed with dead tuples' peaks rising window after window`,
    figure: behind.length
      ? behind.map(([table, peak]) =>
        `${table}: ${count(peak.dead)} dead (threshold ${count(peak.threshold)}, ${peak.runs} runs in the last window)`
      ).join('; ')
      : `all ${last.size} hot tables`,
    pass: behind.length === 0 && last.size > 0,
  };
}

function lagGoal(r: SoakReport): Goal {
  const lags = r.samples.lag.map((s) => s.ms);
  const p99 = percentile(lags, 99);
  return {
    goal: `replica lag p99 under the facade's staleness bound (DB_REPLICA_MAX_LAG_MS ${r.maxLagMs} ms)`,
    figure: lags.length
      ? `p99 ${ms(p99)} ms, max ${ms(Math.max(...lags))} ms over ${count(lags.length)} samples`
      : 'not measured: no replica (BENCH_REPLICA=off)',
    pass: lags.length > 0 && p99 < r.maxLagMs,
  };
}

function windowLabel(r: SoakReport, index: number): string {
  const from = index * r.windowMs;
  const to = Math.min(r.durationMs, from + r.windowMs);
  return `${minuteFigure(from)}–${minuteFigure(to)} min`;
}

function sampleRows(r: SoakReport): string[] {
  return r.recorder.windows.map((window, index) => {
    const from = index * r.windowMs;
    const to = from + r.windowMs;
    const within = <T extends { at: number }>(list: T[]) =>
      list.filter((s) => s.at >= from && (s.at < to || index === r.recorder.windows.length - 1));
    const all = merge([...window.values()]);
    const seconds = (Math.min(r.durationMs, to) - from) / 1000;
    const errors = [...all.statuses].filter(([status]) => isError(status)).reduce((sum, [, n]) => sum + n, 0);
    const memory = within(r.samples.memory);
    const lag = within(r.samples.lag);
    const pooler = within(r.samples.pooler);
    const lagMs = lag.map((s) => s.ms);
    const sessions = within(r.samples.sessions);
    const opened = sessions.length > 1
      ? (sessions[sessions.length - 1].opened - sessions[0].opened) /
        ((sessions[sessions.length - 1].at - sessions[0].at) / 1000)
      : NaN;
    const max = (values: number[]) => values.length ? Math.max(...values) : NaN;
    return `| ${windowLabel(r, index)} | ${count(all.latencies.length)} | ${
      (all.latencies.length / seconds).toFixed(0)
    } | ` +
      `${errors} | ${memory.length ? rssLabel(rssRange(memory)) : '–'} | ${
        liveLabel(within(r.samples.collections))
      } | ` +
      `${ms(percentile(lagMs, 50))} / ${ms(percentile(lagMs, 99))} / ${ms(max(lagMs))} | ` +
      `${count(Math.round(percentile(lag.map((s) => s.bytes), 99) || 0))} | ${
        max(pooler.map((s) => s.waiting)) || 0
      } | ${ms(max(pooler.map((s) => s.maxWaitMs)))} | ${Number.isFinite(opened) ? opened.toFixed(1) : '–'} |`;
  });
}

function tableRows(r: SoakReport): string[] {
  const peaks = r.recorder.windows.map((_, index) => windowPeaks(r, index));
  const end = peaks[peaks.length - 1];
  return [...end.keys()].sort().map((table) => {
    const cells = peaks.map((window) => {
      const peak = window.get(table);
      return peak ? `${count(peak.dead)}${peak.runs ? ` (${peak.runs} av)` : ''}` : '–';
    });
    const last = end.get(table)!;
    return `| ${table} | ${count(last.live)} | ${count(last.threshold)} | ${cells.join(' | ')} | ${
      last.lastAutovacuum?.slice(11, 19) ?? '–'
    } |`;
  });
}

export function soakMarkdown(r: SoakReport): string {
  const whole = new Map<string, Tally>();
  const operations = [...new Set(r.recorder.windows.flatMap((w) => [...w.keys()]))].sort();
  for (const name of operations) {
    whole.set(name, merge(r.recorder.windows.map((w) => w.get(name)).filter((t): t is Tally => !!t)));
  }
  const p99 = p99Rows(r, operations);
  const goals = [errorsGoal(operations, whole), p99.goal, memoryGoal(r), autovacuumGoal(r), lagGoal(r)];
  const operationTable = (tallies: Map<string, Tally>) => [
    '| operation | requests | p50 ms | p99 ms | not 2xx, by status |',
    '|---|---:|---:|---:|---|',
    ...operations.map((name) => operationRow(name, tallies.get(name))),
  ];
  const examples = operations.flatMap((name) =>
    [...whole.get(name)!.examples].map(([status, text]) =>
      `- ${name}, ${status || 'no answer'}: \`${text.replaceAll('`', "'").replaceAll('\n', ' ')}\``
    )
  );
  const windowHeads = r.recorder.windows.map((_, index) => windowLabel(r, index));
  return [
    `# ${r.title}`,
    '',
    ...r.header.map((line) => `- ${line}`),
    '',
    '## Goals',
    '',
    '| goal | figure | |',
    '|---|---|---|',
    ...goals.map((g) => `| ${g.goal} | ${g.figure} | ${g.pass ? 'PASS' : '**MISS**'} |`),
    '',
    '### p99, first window against last',
    '',
    '| operation | requests (first / last) | p99 first ms | p99 last ms | growth | |',
    '|---|---:|---:|---:|---:|---|',
    ...p99.rows,
    '',
    '## Operations over the whole run',
    '',
    'A 4xx is the product answering by its rules (not found, a conflict); a 5xx or no answer is a failure.',
    '',
    ...operationTable(whole),
    '',
    ...(examples.length ? ['First answer of each status that was not 2xx:', '', ...examples, ''] : []),
    '## Per window',
    '',
    '| window | requests | req/s | 5xx | function RSS MiB (lowest–largest) | V8 heap alive after full collections MiB (lowest–largest, collections) | replica lag ms p50 / p99 / max | WAL behind, bytes p99 | pooler waiting clients (max) | pooler max wait ms | Postgres sessions opened per s |',
    '|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|',
    ...sampleRows(r),
    '',
    '### Hot tables: the most dead tuples sampled in each window (autovacuum runs in it), every 10 s',
    '',
    `| table | live rows (end) | autovacuum threshold | ${windowHeads.join(' | ')} | last autovacuum |`,
    `|---|---:|---:|${windowHeads.map(() => '---:').join('|')}|---|`,
    ...tableRows(r),
    '',
    ...r.leftovers.map((line) => `- ${line}`),
    '',
    ...r.recorder.windows.flatMap((window, index) => [
      `### Window ${windowLabel(r, index)}`,
      '',
      ...operationTable(window),
      '',
    ]),
  ].join('\n');
}
