// The SQL function alone, without HTTP or the facade: pgbench runs the same call in one transaction per
// request, as `authenticator` taking the caller's role and claims as PostgREST does. With several callers,
// pgbench client n runs as caller n modulo their number (\if on :client_id), as wrk's threads do. Two
// statements can also run side by side in one run (runPgbenchPair), so that both meet the same moments of a
// noisy machine.
import { join } from 'node:path';
import { type Identity, identitySql } from './identity.ts';
import { type Load, noLoad } from './load.ts';
import { percentile } from './stats.ts';

export interface SqlLoad {
  url: string; // as authenticator
  /** The statement under test, e.g. `select public.get_post('…')`. */
  sql: string;
  identities: Identity[];
  clients: number;
  seconds: number;
  /** `sql` is the whole transaction, sent as it is (its own settings, one message): no identities, no begin. */
  raw?: boolean;
  /**
   * Seconds added before `seconds` for the sessions to warm up: the figures then start when the last client's
   * first transaction ended, not the first's (with 64 clients on 2 cores, compiling every session's functions
   * takes seconds, which would otherwise count as a slow run).
   */
  warmUp?: number;
}

function script(load: SqlLoad): string {
  if (load.raw) return `${load.sql};\n`;
  const n = load.identities.length;
  const identity = n === 1
    ? identitySql(load.identities[0]) + ';'
    : load.identities.map((caller, i) =>
      `${i === 0 ? '\\if' : '\\elif'} :client_id % ${n} = ${i}\n${identitySql(caller)};`
    ).join('\n') + '\n\\endif';
  return `begin;\n${identity}\n${load.sql};\ncommit;\n`;
}

interface Transaction {
  client: number;
  number: number;
  latency: number; // ms
  end: number; // s since the epoch
}

/** Every transaction, from pgbench's per-transaction logs (`client tx latency_us script epoch_s epoch_us`). */
async function transactions(dir: string): Promise<Transaction[]> {
  const all: Transaction[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.name.startsWith('tx.')) continue;
    for (const line of (await Deno.readTextFile(join(dir, entry.name))).split('\n')) {
      const f = line.split(' ').map(Number);
      if (f.length >= 6) all.push({ client: f[0], number: f[1], latency: f[2] / 1000, end: f[4] + f[5] / 1e6 });
    }
  }
  return all;
}

/**
 * Figures of a warm session: each client's first transaction is left out, as PL/pgSQL compiles and plans a
 * function once per session (hundreds of ms for the heavy ones) and PostgREST's and the facade's sessions
 * live long. Throughput counts from the first of those first transactions to end (the last, with `allWarm`)
 * to the last end.
 */
function warmFigures(all: Transaction[], allWarm: boolean): Pick<Load, 'perSecond' | 'p50' | 'p99'> | undefined {
  const first = new Map<number, number>();
  for (const t of all) first.set(t.client, Math.min(first.get(t.client) ?? Infinity, t.number));
  const firstEnds = all.filter((t) => t.number === first.get(t.client)).map((t) => t.end);
  const start = allWarm ? Math.max(...firstEnds) : Math.min(...firstEnds);
  const warm = all.filter((t) => t.number > first.get(t.client)! && (!allWarm || t.end > start));
  if (warm.length === 0) return undefined;
  const end = Math.max(...warm.map((t) => t.end));
  const latencies = warm.map((t) => t.latency);
  return { perSecond: warm.length / (end - start), p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

export async function runPgbench(load: SqlLoad, pgbench: string, scratchDir: string): Promise<Load> {
  const [only] = await runScript(load, script(load), pgbench, scratchDir, 1, () => 0);
  return only;
}

/**
 * `a` and `b` side by side in one pgbench run (url, clients and seconds are `a`'s): the even clients run `a`,
 * the odd ones `b`, each in a session of its own (a session switching roles would plan its functions' queries
 * again at every switch, as their plans depend on the role's row-level security). Both meet the same seconds
 * of a shared machine; the figures of each.
 */
export function runPgbenchPair(a: SqlLoad, b: SqlLoad, pgbench: string, scratchDir: string): Promise<Load[]> {
  const both = `\\if :client_id % 2 = 0\n${script(a)}\\else\n${script(b)}\\endif\n`;
  return runScript({ ...a, clients: 2 * a.clients }, both, pgbench, scratchDir, 2, (t) => t.client % 2);
}

/** Runs `text` as `load` says; the figures of each of `groups` groups of its transactions (`groupOf`: which). */
async function runScript(
  load: SqlLoad,
  text: string,
  pgbench: string,
  scratchDir: string,
  groups: number,
  groupOf: (t: Transaction) => number,
): Promise<Load[]> {
  const dir = await Deno.makeTempDir({ dir: scratchDir, prefix: 'pgbench-' });
  try {
    const file = join(dir, 'script.sql');
    await Deno.writeTextFile(file, text);
    const output = await new Deno.Command(pgbench, {
      args: [
        '--no-vacuum',
        '--client',
        String(load.clients),
        '--jobs',
        String(Math.min(2, load.clients)),
        '--time',
        String(load.seconds + (load.warmUp ?? 0)),
        '--file',
        file,
        '--log',
        `--log-prefix=${join(dir, 'tx')}`,
        load.url,
      ],
      cwd: dir,
      stdin: 'null',
      stdout: 'piped',
      stderr: 'piped',
    }).output();
    const stdout = new TextDecoder().decode(output.stdout);
    const stderr = new TextDecoder().decode(output.stderr);
    const error = /ERROR:\s*(.*)/.exec(stderr)?.[1] ?? (output.success ? undefined : stderr.trim().split('\n').pop());
    const tps = /tps = ([\d.]+)/.exec(stdout);
    const all = await transactions(dir);
    if (!tps) return Array.from({ length: groups }, () => noLoad(`pgbench: ${error ?? 'no result'}`));
    return Array.from({ length: groups }, (_, group) => {
      const mine = all.filter((t) => groupOf(t) === group);
      const warm = warmFigures(mine, load.warmUp !== undefined);
      if (warm) return { ...warm, failed: error };
      // A single transaction per client (each one is slow): pgbench's own figures, cold.
      const latencies = mine.map((t) => t.latency);
      return {
        perSecond: Number(tps[1]) / groups,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        failed: error,
      };
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
