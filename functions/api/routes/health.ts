// GET /health: whether the facade can reach the database and Supabase Auth.
import { createRoute, z } from '@hono/zod-openapi';
import { createRouter } from '../lib/router.ts';
import type { Deps } from '../lib/context.ts';

const ServiceState = z.enum(['up', 'down']);

const HealthSchema = z
  .object({
    status: z.enum(['ok', 'degraded']),
    database: ServiceState,
    auth: ServiceState,
  })
  .openapi('Health');

const route = createRoute({
  method: 'get',
  path: '/health',
  operationId: 'getHealth',
  security: [],
  tags: ['health'],
  summary: 'State of the facade and of the services it depends on',
  responses: {
    200: { description: 'Every service is up', content: { 'application/json': { schema: HealthSchema } } },
    503: { description: 'A service is down', content: { 'application/json': { schema: HealthSchema } } },
  },
});

const timeoutMs = 2000;

async function databaseIsUp({ sql }: Deps): Promise<boolean> {
  const probe = sql`select 1`.then(() => true);
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

export const health = createRouter().openapi(route, async (c) => {
  const [database, auth] = await Promise.all([databaseIsUp(c.var.deps), authIsUp(c.var.deps)]);
  const body = {
    status: database && auth ? 'ok' as const : 'degraded' as const,
    database: database ? 'up' as const : 'down' as const,
    auth: auth ? 'up' as const : 'down' as const,
  };
  return body.status === 'ok' ? c.json(body, 200) : c.json(body, 503);
});
