// GET /health: whether the facade can reach the database, Supabase Auth and the mail server code e-mails go out
// through, whether PostgREST (/rest/v1, which supabase-js clients use) serves, and whether a read replica can take
// reads.
import { createRoute, z } from '@hono/zod-openapi';
import { databaseRetryAfter } from '../lib/errors.ts';
import { createRouter } from '../lib/router.ts';
import type { Deps } from '../lib/context.ts';
import { smtpIsUp } from '../lib/smtp.ts';

const ServiceState = z.enum(['up', 'down']);

const HealthSchema = z
  .object({
    status: z.enum(['ok', 'degraded']),
    database: ServiceState,
    auth: ServiceState,
    /** PostgREST at /rest/v1: up once connected with its schema cache loaded. */
    rest: ServiceState,
    /** `unchecked` when the function is not told the mail server (SMTP_SERVER). */
    mail: z.enum(['up', 'down', 'unchecked']),
    /**
     * `up`: a read replica is reachable and within the staleness bound; `down`: none is, so every read goes to the
     * primary (which `status` does not count against); `none`: no replica is configured (DB_REPLICA_URLS).
     */
    replicas: z.enum(['up', 'down', 'none']),
  })
  .openapi('Health');

const timeoutMs = 2000;

async function databaseIsUp({ db }: Deps): Promise<boolean> {
  const probe = db.probe`select 1`.then(() => true);
  const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs));
  return await Promise.race([probe, timeout]).catch(() => false);
}

async function authIsUp({ env }: Deps): Promise<boolean> {
  try {
    const response = await fetch(`${env.SUPABASE_URL}/auth/v1/health`, {
      headers: { apikey: env.SUPABASE_ANON_KEY },
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

async function restIsUp({ env }: Deps): Promise<boolean> {
  try {
    // HEAD of the root: 200 once PostgREST has loaded its schema cache, 503 while it cannot reach the database.
    const response = await fetch(`${env.SUPABASE_URL}/rest/v1/`, {
      method: 'HEAD',
      headers: { apikey: env.SUPABASE_SERVICE_ROLE_KEY },
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

async function mailState({ env }: Deps): Promise<'up' | 'down' | 'unchecked'> {
  if (!env.SMTP_SERVER) return 'unchecked';
  return await smtpIsUp(env.SMTP_SERVER) ? 'up' : 'down';
}

async function replicaState({ db }: Deps): Promise<'up' | 'down' | 'none'> {
  if (!db.replicas.configured) return 'none';
  return await db.replicas.usable() > 0 ? 'up' : 'down';
}

export const health = createRouter().openapi(
  createRoute({
    method: 'get',
    path: '/health',
    operationId: 'getHealth',
    description:
      'Whether the database, Supabase Auth, its mail server and PostgREST are up (503 names what is down), and ' +
      'whether a read replica can take reads (one that cannot does not count against the status).',
    security: [],
    tags: ['health'],
    summary: 'State of the facade and of the services it depends on',
    responses: {
      200: { description: 'Every service is up', content: { 'application/json': { schema: HealthSchema } } },
      503: { description: 'A service is down', content: { 'application/json': { schema: HealthSchema } } },
    },
  }),
  async function getHealth(c) {
    const { deps } = c.var;
    const [database, auth, rest, mail, replicas] = await Promise.all([
      databaseIsUp(deps),
      authIsUp(deps),
      restIsUp(deps),
      mailState(deps),
      replicaState(deps),
    ]);
    const state = (up: boolean) => up ? 'up' as const : 'down' as const;
    const body = {
      status: database && auth && rest && mail !== 'down' ? 'ok' as const : 'degraded' as const,
      database: state(database),
      auth: state(auth),
      rest: state(rest),
      mail,
      replicas,
    };
    if (body.status === 'ok') return c.json(body, 200);
    // As every 503: when to ask again.
    c.header('Retry-After', String(databaseRetryAfter));
    return c.json(body, 503);
  },
);
