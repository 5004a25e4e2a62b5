// GET /health: whether the facade can reach the database, Supabase Auth and (when it is told where) the
// mail server Auth sends its codes through.
import { connect } from 'node:net';
import { createRoute, z } from '@hono/zod-openapi';
import { createRouter } from '../lib/router.ts';
import type { Deps } from '../lib/context.ts';

const ServiceState = z.enum(['up', 'down']);

const HealthSchema = z
  .object({
    status: z.enum(['ok', 'degraded']),
    database: ServiceState,
    auth: ServiceState,
    smtp: ServiceState.optional().openapi({ description: 'Present where the function knows the mail server (the local stack)' }),
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

/** Whether the mail server greets a new connection with SMTP's 220 (then says QUIT). */
function smtpIsUp(address: string): Promise<boolean> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port), timeout: timeoutMs });
    const done = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.once('data', (greeting) => {
      socket.write('QUIT\r\n');
      done(greeting.toString().startsWith('220'));
    });
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

export const health = createRouter().openapi(route, async (c) => {
  const smtpAddress = c.var.deps.env.SMTP_ADDRESS;
  const [database, auth, smtp] = await Promise.all([
    databaseIsUp(c.var.deps),
    authIsUp(c.var.deps),
    smtpAddress ? smtpIsUp(smtpAddress) : undefined,
  ]);
  const state = (up: boolean) => up ? 'up' as const : 'down' as const;
  const body = {
    status: database && auth && smtp !== false ? 'ok' as const : 'degraded' as const,
    database: state(database),
    auth: state(auth),
    ...(smtp === undefined ? {} : { smtp: state(smtp) }),
  };
  return body.status === 'ok' ? c.json(body, 200) : c.json(body, 503);
});
