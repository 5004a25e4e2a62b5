// The pooler and the read replica in figures, measured straight to each facade's port (no gateway): the
// facade through PgBouncer against the same facade straight to Postgres (both reading from the primary); the
// stack's facade, which reads from the replica, against the pooled one that reads everything from the
// primary; and the replica's replay lag while the write endpoints run through the stack's facade.
import postgres from 'postgres';
import type { Profile } from '../stack/config.ts';
import type { Running } from '../stack/processes.ts';
import { spawnFacade, type Stack } from '../stack/stack.ts';
import type { Driver } from './drivers.ts';
import type { Endpoint } from './endpoints.ts';
import type { Load } from './load.ts';
import { runPgbench } from './pgbench.ts';
import { percentile } from './stats.ts';
import { runWrk } from './wrk.ts';

export interface PoolerReplicaRow {
  name: string;
  connections: number;
  direct: Load;
  pooled: Load;
  replica: Load;
  /** Of the transactions the two servers ran during the replica run, the replica's share. */
  replicaShare: number;
}

export interface ReplicaLag {
  samples: number;
  /** ms behind, as the primary measures it (pg_stat_replication.replay_lag; 0 when caught up). */
  p50: number;
  p99: number;
  max: number;
  /** bytes of WAL not yet replayed. */
  bytesP50: number;
  bytesP99: number;
}

export interface PoolerReplicaResult {
  rows: PoolerReplicaRow[];
  lag: ReplicaLag;
  /** What a signed-in read on a replica still costs the primary: the session check and the write count (pgbench, 16 clients). */
  primaryCheck: Load;
  /** Each read's SQL alone on the primary (pgbench, 16 clients), beside it. */
  readSql: { name: string; load: Load }[];
}

/** The statement a signed-in read on a replica sends the primary, after the caller's identity. */
const primaryCheckSql = 'select private.require_uid(); select private.read_mark()';

interface Input {
  stack: Stack;
  /** pgbench's binary, and the primary as authenticator for it. */
  pgbench: string;
  authenticatorUrl: string;
  profile: Profile;
  logDir: string;
  scratch: string;
  seconds: number;
  reader: Driver;
  writers: Driver[];
}

/** Transactions committed or rolled back in the database so far. */
async function transactions(sql: postgres.Sql): Promise<number> {
  const [row] =
    await sql`select (xact_commit + xact_rollback)::bigint as n from pg_stat_database where datname = current_database()`;
  return Number(row.n);
}

async function sampleLag(primary: postgres.Sql, until: Promise<unknown>): Promise<ReplicaLag> {
  let running = true;
  until.finally(() => (running = false));
  const lagMs: number[] = [];
  const lagBytes: number[] = [];
  while (running) {
    const [row] = await primary`
      select coalesce(extract(epoch from replay_lag) * 1000, 0)::float8 as ms,
        pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::float8 as bytes
      from pg_stat_replication where application_name = 'walreceiver'`;
    if (row) {
      lagMs.push(row.ms);
      lagBytes.push(row.bytes);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    samples: lagMs.length,
    p50: percentile(lagMs, 50),
    p99: percentile(lagMs, 99),
    max: Math.max(...lagMs),
    bytesP50: percentile(lagBytes, 50),
    bytesP99: percentile(lagBytes, 99),
  };
}

export async function measurePoolerAndReplica(
  input: Input,
  reads: Endpoint[],
  writes: Endpoint[],
): Promise<PoolerReplicaResult> {
  const { stack, profile, logDir, scratch, seconds, reader, writers, pgbench, authenticatorUrl } = input;
  if (!stack.poolerUrl || !stack.replicaUrl) throw new Error('the bench stack runs no pooler or no replica');
  const ports = { direct: profile.ports.api + 12, pooled: profile.ports.api + 13, replica: profile.ports.functions };
  const started: Running[] = [
    await spawnFacade(profile, stack.keys, { primaryUrl: stack.superuserUrl }, 'facade-direct', ports.direct, logDir),
    await spawnFacade(
      profile,
      stack.keys,
      { primaryUrl: stack.superuserUrl, poolerUrl: stack.poolerUrl },
      'facade-pooled',
      ports.pooled,
      logDir,
    ),
  ];
  const primary = postgres(stack.superuserUrl, { max: 1, onnotice: () => {} });
  const replica = postgres(stack.replicaUrl, { max: 1, onnotice: () => {} });
  try {
    const rows: PoolerReplicaRow[] = [];
    for (const endpoint of reads) {
      for (const connections of [1, 16]) {
        const load = (port: number) =>
          runWrk({
            url: `http://127.0.0.1:${port}/api${endpoint.path}`,
            method: endpoint.method,
            tokens: [reader.accessToken],
            connections,
            seconds,
          }, scratch);
        const direct = await load(ports.direct);
        const pooled = await load(ports.pooled);
        const before = { primary: await transactions(primary), replica: await transactions(replica) };
        const onReplica = await load(ports.replica);
        const primaryRan = await transactions(primary) - before.primary;
        const replicaRan = await transactions(replica) - before.replica;
        rows.push({
          name: endpoint.name,
          connections,
          direct,
          pooled,
          replica: onReplica,
          replicaShare: replicaRan / (replicaRan + primaryRan),
        });
      }
    }
    const writeLoad = (async () => {
      for (const endpoint of writes) {
        await runWrk({
          url: `http://127.0.0.1:${ports.replica}/api${endpoint.path}`,
          method: endpoint.method,
          body: endpoint.body,
          tokens: writers.map((driver) => driver.accessToken),
          connections: writers.length,
          seconds,
        }, scratch);
      }
    })();
    const lag = await sampleLag(primary, writeLoad);
    await writeLoad;
    const sql16 = (sql: string) =>
      runPgbench({ url: authenticatorUrl, sql, identities: [reader.identity], clients: 16, seconds }, pgbench, scratch);
    const primaryCheck = await sql16(primaryCheckSql);
    const readSql = [];
    for (const endpoint of reads) readSql.push({ name: endpoint.name, load: await sql16(endpoint.sql) });
    return { rows, lag, primaryCheck, readSql };
  } finally {
    await Promise.all([primary.end(), replica.end()]);
    for (const running of started) await running.stop();
  }
}
