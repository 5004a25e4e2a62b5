// The read replicas (DB_REPLICA_URLS): a pool of connections to each, taken in turn. Whether a replica is
// current enough for a request is for the database to say, on every request (query.ts); this only leaves
// alone, for a second, a replica whose connection failed, so requests do not queue behind a server that is
// down. Its pool is then opened afresh (postgres.js would hand each dead connection's error to a later
// statement), tried again after that second, and used again as soon as it answers.
import { openPool, type Pool } from './db.ts';

const restMs = 1_000;

export interface Replicas {
  configured: boolean;
  /** The staleness bound as a Postgres interval literal ('2000 ms'). */
  maxLag: string;
  /** The next replica to try, or undefined when none is configured or every one failed within the last second. */
  pick(): Pool | undefined;
  /** Leaves a replica whose connection failed alone for a while. */
  failed(replica: Pool): void;
}

export function createReplicas(urls: string[], max: number, maxLagMs: number): Replicas {
  const replicas = urls.map((url) => ({ url, pool: openPool(url, max), restUntil: 0 }));
  let next = 0;
  return {
    configured: replicas.length > 0,
    maxLag: `${maxLagMs} ms`,
    pick() {
      for (let tried = 0; tried < replicas.length; tried++) {
        const replica = replicas[next];
        next = (next + 1) % replicas.length;
        if (replica.restUntil <= Date.now()) return replica.pool;
      }
      return undefined;
    },
    failed(pool) {
      const replica = replicas.find((candidate) => candidate.pool === pool);
      if (!replica) return; // already opened afresh
      replica.restUntil = Date.now() + restMs;
      replica.pool = openPool(replica.url, max);
      pool.sql.end({ timeout: 0 }).catch(() => {});
    },
  };
}
