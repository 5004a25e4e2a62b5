// What the soak samples while the load runs: every second the replica's lag and the pooler's waiting clients
// (both change within seconds), every ten seconds the function's memory (its RSS, and its V8 heap after each
// full collection, which V8 traces into the function's log), the Postgres sessions opened so far (a service that
// does not keep its connections opens them by the request) and the hot tables' dead tuples and autovacuum runs
// (they change over minutes).
import postgres from 'postgres';

/** The tables every operation of the mix writes, directly or through triggers (counters, notifications, limits). */
export const hotTables = [
  'public.posts',
  'public.profiles',
  'public.post_likes',
  'public.comments',
  'public.follows',
  'public.notifications',
  'private.feed_sources',
  'private.write_counts',
  'private.write_marks',
  'private.request_counts',
  'auth.sessions',
  'auth.refresh_tokens',
];

export interface LagSample {
  at: number;
  /** pg_stat_replication.replay_lag on the primary, in ms (0 when the replica has replayed everything). */
  ms: number;
  /** WAL written and not yet replayed. */
  bytes: number;
}

export interface PoolerSample {
  at: number;
  /** Clients waiting for a server connection, over every pool. */
  waiting: number;
  /** How long the oldest of them has waited, in ms (the largest pool's). */
  maxWaitMs: number;
}

export interface MemorySample {
  at: number;
  pid: number;
  rssMiB: number;
}

/** One full (mark-compact) collection of the function's V8 heap: what it kept alive shows a leak, RSS cannot. */
export interface CollectionSample {
  at: number;
  /** The heap's objects alive after it. */
  liveMiB: number;
}

/** pg_stat_database.sessions of the primary's database: the sessions opened since its statistics began. */
export interface SessionSample {
  at: number;
  opened: number;
}

export interface TableSample {
  at: number;
  table: string;
  live: number;
  dead: number;
  autovacuums: number;
  lastAutovacuum: string | null;
  /** Dead tuples at which autovacuum takes the table (its threshold plus scale factor times its rows). */
  threshold: number;
}

export interface Samples {
  lag: LagSample[];
  pooler: PoolerSample[];
  memory: MemorySample[];
  collections: CollectionSample[];
  sessions: SessionSample[];
  tables: TableSample[];
}

export interface SampleSources {
  primaryUrl: string;
  poolerUrl: string;
  /** The function's current process (the supervisor's: a restarted one has a new pid). */
  functionPid: () => number | undefined;
  /** The function's log, where V8 traces its collections (the stack runs it with --trace-gc). */
  functionLog: string;
}

function rssMiB(pid: number): number | undefined {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status);
    return kb ? Number(kb[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** V8's --trace-gc line of a full collection: "Mark-Compact 154.9 (156.4) -> 40.4 (41.5) MB, …" (alive before
 * and after, each with the heap's size in brackets). */
const markCompact = /Mark-Compact(?: \([a-z ]+\))? [\d.]+ \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB/;

/** Reads what a log gained since the last call: its full collections, each taken as made `at`. */
function collectionsReader(path: string): (at: number) => CollectionSample[] {
  let offset = Deno.statSync(path).size;
  return (at) => {
    const bytes = Deno.readFileSync(path);
    if (bytes.length < offset) offset = 0;
    // Only whole lines: a line still being written is read next time.
    const end = bytes.lastIndexOf(0x0a) + 1;
    const fresh = new TextDecoder().decode(bytes.subarray(offset, Math.max(offset, end)));
    offset = Math.max(offset, end);
    return fresh.split('\n').flatMap((line) => {
      const found = markCompact.exec(line);
      return found ? [{ at, liveMiB: Number(found[1]) }] : [];
    });
  };
}

/** The setting of a table's own (reloptions) or the server's. */
const tableSetting = (name: string) =>
  `coalesce((select option_value::float8 from pg_options_to_table(c.reloptions) where option_name = '${name}'),
    current_setting('${name}')::float8)`;

/** Samples until `until` resolves; answers what it saw, with times in ms since `startedAt` (performance.now()). */
export async function sample(sources: SampleSources, startedAt: number, until: Promise<unknown>): Promise<Samples> {
  const primary = postgres(sources.primaryUrl, { max: 1, onnotice: () => {} });
  const admin = new URL(sources.poolerUrl);
  admin.pathname = '/pgbouncer';
  const pgbouncer = postgres(admin.toString(), { max: 1, prepare: false, fetch_types: false });
  const samples: Samples = { lag: [], pooler: [], memory: [], collections: [], sessions: [], tables: [] };
  const newCollections = collectionsReader(sources.functionLog);
  let running = true;
  const stop = () => (running = false);
  until.then(stop, stop);
  const at = () => performance.now() - startedAt;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const everySecond = async () => {
    while (running) {
      const [lag] = await primary`
        select coalesce(extract(epoch from replay_lag) * 1000, 0)::float8 as ms,
          pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::float8 as bytes
        from pg_stat_replication where application_name = 'walreceiver'`;
      if (lag) samples.lag.push({ at: at(), ms: lag.ms, bytes: lag.bytes });
      const pools = (await pgbouncer.unsafe('show pools')).filter((pool) => pool.database !== 'pgbouncer');
      samples.pooler.push({
        at: at(),
        waiting: pools.reduce((sum, pool) => sum + Number(pool.cl_waiting), 0),
        maxWaitMs: Math.max(0, ...pools.map((pool) => Number(pool.maxwait) * 1000 + Number(pool.maxwait_us) / 1000)),
      });
      await sleep(1000);
    }
  };
  const everyTenSeconds = async () => {
    while (running) {
      const pid = sources.functionPid();
      const rss = pid === undefined ? undefined : rssMiB(pid);
      if (pid !== undefined && rss !== undefined) samples.memory.push({ at: at(), pid, rssMiB: rss });
      samples.collections.push(...newCollections(at()));
      await primary`select pg_stat_clear_snapshot()`;
      const [database] = await primary`
        select sessions::float8 as opened from pg_stat_database where datname = current_database()`;
      samples.sessions.push({ at: at(), opened: database.opened });
      const rows = await primary`
        select s.schemaname || '.' || s.relname as table, s.n_live_tup::float8 as live, s.n_dead_tup::float8 as dead,
          s.autovacuum_count::int as autovacuums, s.last_autovacuum::text as last_autovacuum,
          ${primary.unsafe(tableSetting('autovacuum_vacuum_threshold'))}
            + ${primary.unsafe(tableSetting('autovacuum_vacuum_scale_factor'))} * greatest(c.reltuples, 0)
            as threshold
        from pg_stat_all_tables s join pg_class c on c.oid = s.relid
        where s.schemaname || '.' || s.relname = any(${hotTables})`;
      const now = at();
      for (const row of rows) {
        samples.tables.push({
          at: now,
          table: row.table,
          live: row.live,
          dead: row.dead,
          autovacuums: row.autovacuums,
          lastAutovacuum: row.last_autovacuum,
          threshold: Math.round(row.threshold),
        });
      }
      await sleep(10_000);
    }
  };
  try {
    await Promise.all([everySecond(), everyTenSeconds()]);
    return samples;
  } finally {
    await Promise.all([primary.end(), pgbouncer.end()]);
  }
}
