// The read replicas (DB_REPLICA_URLS): a pool of connections to each, taken in turn among those within the
// staleness bound (replica-lag.ts). Whether one has replayed what a given caller must see is for the database
// to say, on every request (query.ts). A replica whose connection failed is left alone for a second, so requests
// do not queue behind a server that is down; its pool is then opened afresh (postgres.js would hand each dead
// connection's error to a later statement), and it is used again as soon as it answers within the bound.
import type postgres from 'postgres';
import { openPool, type Pool } from './pool.ts';
import { createLagMeter } from './replica-lag.ts';

const restMs = 1_000;

export interface Replicas {
  configured: boolean;
  /** The next replica to try, or undefined when none is up and within the bound. */
  pick(): Promise<Pool | undefined>;
  /** Leaves a replica whose connection failed alone for a while. */
  failed(replica: Pool): void;
  /** How many replicas are up and within the bound now. */
  usable(): Promise<number>;
}

export function createReplicas(primary: postgres.Sql, urls: string[], max: number, maxLagMs: number): Replicas {
  const replicas = urls.map((url) => ({ url, pool: openPool(url, max, false), restUntil: 0 }));
  const meter = createLagMeter(primary, () => replicas.map((replica) => replica.pool.sql), maxLagMs);
  let next = 0;
  const within = async () => {
    const lags = await meter.lags().catch(() => replicas.map(() => Infinity));
    return replicas.map((replica, index) => replica.restUntil <= Date.now() && lags[index] <= maxLagMs);
  };
  return {
    configured: replicas.length > 0,
    async pick() {
      if (replicas.length === 0) return undefined;
      const usable = await within();
      for (let tried = 0; tried < replicas.length; tried++) {
        const index = next;
        next = (next + 1) % replicas.length;
        if (usable[index]) return replicas[index].pool;
      }
      return undefined;
    },
    async usable() {
      return replicas.length === 0 ? 0 : (await within()).filter(Boolean).length;
    },
    failed(pool) {
      const replica = replicas.find((candidate) => candidate.pool === pool);
      if (!replica) return; // already opened afresh
      replica.restUntil = Date.now() + restMs;
      replica.pool = openPool(replica.url, max, false);
      pool.sql.end({ timeout: 0 }).catch(() => {});
    },
  };
}
