// The Hono app of the `api` Edge Function: routes under /api (the function's name, as the Edge Runtime
// passes paths), each group's module imported with its first request (routes/groups.ts), one error envelope,
// and the OpenAPI document built from the route declarations.
import { isIP } from 'node:net';
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { requestId } from 'hono/request-id';
import type { Env } from './env.ts';
import type { AppEnv, Deps } from './lib/context.ts';
import { createDeps } from './lib/deps.ts';
import type { RequestQuota } from './lib/request-quota.ts';
import { bufferedBody } from './lib/body.ts';
import { caching } from './lib/caching.ts';
import { ApiError, handleError } from './lib/errors.ts';
import { type Quota, quotaHeaders, tighterQuota } from './lib/limits.ts';
import { mountLazily } from './lib/lazy-routes.ts';
import { utf8Only } from './lib/utf8.ts';
import { documentedRoutes, routeGroups } from './routes/groups.ts';

const maxBodyBytes = 64 * 1024;
const bodyDeadlineMs = 10_000;

/**
 * The client's address for Auth's per-IP rate limits and the request limits: the last X-Forwarded-For entry, the one the platform's
 * gateway appended. Earlier entries come from the client and can be anything it likes.
 */
function clientIp(forwardedFor: string | undefined): string | undefined {
  const last = forwardedFor?.split(',').at(-1)?.trim();
  return last && isIP(last) ? last : undefined;
}

/** The methods the app's routes serve on `path` (none: no route has that path). */
function allowedMethods(routes: { method: string; path: string }[], path: string): string[] {
  const methods = routes
    .filter((route) => route.method !== 'ALL')
    .filter((route) => {
      const pattern = route.path.split('/').map((part) =>
        part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      );
      return new RegExp(`^${pattern.join('/')}$`).test(path);
    })
    .map((route) => route.method);
  return [...new Set(methods)].sort();
}

export function createApp(env: Env, deps: Deps = createDeps(env)) {
  const app = new Hono<AppEnv>().basePath('/api');
  app.use(requestId());
  // Browsers on any origin may call the API: credentials travel in the Authorization header, never in
  // cookies, so a page on another origin can do nothing a script with the token could not do anyway. The
  // function answers its own preflight, as an Edge Function must (a hosted project's gateway leaves
  // /functions/v1's CORS to the function): every request header the API documents is allowed (Idempotency-Key on
  // the creates, X-Request-Id, which the answer echoes), and every answer header it documents may be read.
  app.use(cors({
    origin: '*',
    allowMethods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
    allowHeaders: [
      'Authorization',
      'Content-Type',
      'apikey',
      'x-client-info',
      'Idempotency-Key',
      'X-Request-Id',
      'If-None-Match',
    ],
    exposeHeaders: [
      'X-Request-Id',
      'Retry-After',
      'WWW-Authenticate',
      'Allow',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Content-Disposition',
      'ETag',
    ],
    maxAge: 600,
  }));
  app.use(async (c, next) => {
    const address = clientIp(c.req.header('x-forwarded-for'));
    // A GET only reads (the SQL functions it calls are stable): a replica may serve it.
    const requestQuota: RequestQuota = { address, counter: deps.requestCounter, taken: false };
    let writeQuota: Quota | undefined;
    c.set('deps', {
      ...deps,
      request: {
        signal: c.req.raw.signal,
        readOnly: c.req.method === 'GET',
        quota: requestQuota,
        onWriteQuota: (quota) => (writeQuota = quota),
      },
    });
    c.set('clientIp', address);
    await next();
    // Every answer that counted against a limit says where the client stands (a refusal said it already).
    const quota = tighterQuota(requestQuota.left, writeQuota);
    if (!quota || c.res.headers.has('RateLimit-Limit')) return;
    for (const [name, value] of quotaHeaders(quota)) c.res.headers.set(name, value);
  });
  // Inside the limits' headers, so that a 304 carries them too.
  app.use(caching);
  app.use(utf8Only);
  app.use(bufferedBody(maxBodyBytes, bodyDeadlineMs));

  // Built when first asked, then kept: the routes do not change once the app is built, and a start that never
  // serves the document never pays for it, nor for the modules only it needs (every group's, every operation's
  // codes). Registered first: users' /{username} would otherwise catch it.
  let document: Promise<unknown> | undefined;
  app.get('/openapi.json', async function getOpenApiDocument(c) {
    document ??= Promise.all([documentedRoutes(), import('./lib/openapi.ts'), import('./lib/overview.ts')]).then((
      [routes, { withCommonErrors, withErrorCodes, withHeadersAndTags }, { apiOverview }],
    ) =>
      withHeadersAndTags(withErrorCodes(withCommonErrors(routes.getOpenAPI31Document({
        openapi: '3.1.0',
        info: { title: 'DayKeeper social API', version: '0.1.0', description: apiOverview },
        servers: [{ url: `${env.SUPABASE_URL}/functions/v1` }],
      }))))
    );
    return c.json(await document);
  });
  for (const group of routeGroups) mountLazily(app, group);
  app.notFound((c) => {
    const path = new URL(c.req.url).pathname;
    const allowed = allowedMethods(app.routes, path);
    if (allowed.length === 0) throw new ApiError(404, 'route_not_found', `No route for ${c.req.method} ${path}`);
    c.header('Allow', allowed.join(', '));
    throw new ApiError(
      405,
      'method_not_allowed',
      `${c.req.method} is not allowed on ${path}: use ${allowed.join(' or ')}`,
    );
  });
  app.onError(handleError);
  return app;
}
