// The function's shared dependencies (the database, the token verifier, Auth, the mailer, the request counter),
// built once a process.
import type { Env } from '../env.ts';
import type { Deps } from './context.ts';
import { createAuthApi } from './auth-api.ts';
import { createDatabase, type Database, runOn } from './db.ts';
import { createMailer } from './mail.ts';
import { createRequestCounter, type KeyState, type UnwrittenCount } from './request-counter.ts';
import { sql } from './sql-text.ts';
import { createTokenVerifier } from './tokens.ts';

export function createDeps(env: Env): Deps {
  const db = createDatabase(
    { primary: env.DB_POOLER_URL ?? env.SUPABASE_DB_URL, direct: env.SUPABASE_DB_URL, replicas: env.DB_REPLICA_URLS },
    env.DB_POOL_MAX,
    env.DB_REPLICA_MAX_LAG_MS,
  );
  return {
    env,
    db,
    verifyToken: createTokenVerifier({
      authUrl: `${env.SUPABASE_URL}/auth/v1`,
      jwks: env.SUPABASE_JWKS,
      jwtSecret: env.SUPABASE_JWT_SECRET,
    }),
    auth: createAuthApi(env),
    sendMail: createMailer(env),
    requestCounter: createRequestCounter((counts) => writeRequestCounts(db, counts)),
  };
}

/** Adds the requests this process admitted to their counts on the primary, in one statement. */
async function writeRequestCounts(db: Database, counts: UnwrittenCount[]): Promise<KeyState[]> {
  const [row] = await runOn(
    db,
    undefined,
    sql`select private.add_request_counts(${JSON.stringify(counts)}) as keys`.text,
  );
  return row.keys;
}

/**
 * Starts opening the database connections a first request uses (the probe's, one of the pool's, the replicas'),
 * without waiting for them: index.ts calls it before the routes load, so they open meanwhile (a cold start's
 * first request then finds them open). The probe's first statement reads the role settings every request's
 * transaction begins with, so the first request does not wait for them either. A failure is left for the
 * requests to meet.
 */
export function openConnections({ db }: Deps): void {
  void Promise.allSettled([db.roleSettings('anon'), db.sql`select 1`, db.replicas.usable()]);
}
