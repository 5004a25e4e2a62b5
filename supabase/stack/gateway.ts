// The local stand-in for hosted Supabase's API gateway: one origin where Auth answers under /auth/v1, PostgREST
// under /rest/v1 and Edge Functions under /functions/v1, as on a hosted project. It also serves
// supabase/templates, because Supabase Auth fetches its e-mail templates by URL.
import { type Context, Hono, type Next } from 'hono';
import { proxy } from 'hono/proxy';
import { join } from 'node:path';
import { repoRoot } from './config.ts';

export interface GatewayUpstreams {
  auth: string;
  functions: string;
  rest: string;
  /** The project's API keys (anon, service_role): /rest/v1 takes a request only with one of them. */
  apiKeys: string[];
  /** The one API key whose holder may name the client in Sb-Forwarded-For (hosted: a secret key). */
  forwardingKey: string;
}

function failure(status: number, code: string, message: string) {
  return Response.json({ error: { code, message } }, { status });
}

function unavailable(service: string) {
  return failure(503, 'service_unavailable', `${service} is not running in this local stack`);
}

/** /rest/v1 as the hosted gateway guards it: a request names the project with an API key in the apikey header. */
function requireApiKey(apiKeys: string[]) {
  return async (c: Context, next: Next) => {
    const key = c.req.header('apikey');
    if (!key) {
      return failure(401, 'no_api_key', 'No API key found in the request: send the project\'s anon key in the apikey header');
    }
    if (!apiKeys.includes(key)) return failure(401, 'invalid_api_key', 'Invalid API key: use one of the keys `npm start` prints');
    await next();
  };
}

/**
 * Forwards a request to `upstream`, dropping the gateway's path prefix. With `keyAsBearer`, a request without a
 * user token is made as its API key's role (anon, service_role), the key then being the bearer, as PostgREST
 * behind the hosted gateway sees it.
 */
function forward(prefix: string, upstream: string, service: string, forwardingKey: string, keyAsBearer = false) {
  return async (c: { req: { url: string; raw: Request }; env: { remoteAddr?: Deno.NetAddr } }) => {
    const url = new URL(c.req.url);
    const target = `${upstream}${url.pathname.slice(prefix.length)}${url.search}`;
    try {
      // A new request rather than the incoming one: its abort signal must not cut the upstream call short.
      const { method, body } = c.req.raw;
      const headers = new Headers(c.req.raw.headers);
      // The gateway is the edge: it tells the service who the client is, replacing whatever the client
      // claimed (a client-chosen X-Forwarded-For would let it dodge Auth's per-IP rate limits).
      headers.delete('x-forwarded-for');
      if (c.env.remoteAddr) headers.set('x-forwarded-for', c.env.remoteAddr.hostname);
      // A server such as the facade names its own client in Sb-Forwarded-For, which Auth prefers; only a
      // holder of the secret key may, as on hosted projects with IP address forwarding turned on.
      if (headers.get('apikey') !== forwardingKey) headers.delete('sb-forwarded-for');
      const apiKey = headers.get('apikey');
      if (keyAsBearer && apiKey && !headers.has('authorization')) headers.set('authorization', `Bearer ${apiKey}`);
      // The proxy drops hop-by-hop headers; a service that ends the exchange (a body too large or too slow)
      // still has the client's connection closed.
      let closes = false;
      const customFetch = async (request: Request) => {
        const response = await fetch(request);
        closes = response.headers.get('connection')?.toLowerCase() === 'close';
        return response;
      };
      // redirect: 'manual' hands redirects to the client, as a gateway must.
      const response = await proxy(target, { method, headers, body, duplex: 'half', redirect: 'manual', customFetch } as RequestInit);
      if (closes) response.headers.set('connection', 'close');
      return response;
    } catch {
      return unavailable(service);
    }
  };
}

export function createGateway(upstreams: GatewayUpstreams) {
  const gateway = new Hono<{ Bindings: { remoteAddr?: Deno.NetAddr } }>();
  gateway.all('/auth/v1/*', forward('/auth/v1', upstreams.auth, 'Supabase Auth', upstreams.forwardingKey));
  gateway.all('/functions/v1/*', forward('/functions/v1', upstreams.functions, 'The api function', upstreams.forwardingKey));
  gateway.use('/rest/v1/*', requireApiKey(upstreams.apiKeys));
  gateway.all('/rest/v1/*', forward('/rest/v1', upstreams.rest, 'PostgREST', upstreams.forwardingKey, true));
  gateway.get('/email/:file{[a-z_]+\\.html}', async (c) => {
    const body = await Deno.readTextFile(join(repoRoot, 'supabase', 'templates', c.req.param('file'))).catch(() => null);
    return body === null ? c.notFound() : c.html(body);
  });
  gateway.notFound((c) =>
    failure(404, 'not_found', `Nothing at ${c.req.method} ${new URL(c.req.url).pathname}: this origin serves /auth/v1, /rest/v1 and /functions/v1`));
  return gateway;
}

export function serveGateway(port: number, upstreams: GatewayUpstreams): Deno.HttpServer {
  const gateway = createGateway(upstreams);
  return Deno.serve({ hostname: '127.0.0.1', port, onListen: () => {} }, (request, info) =>
    gateway.fetch(request, { remoteAddr: info.remoteAddr as Deno.NetAddr }));
}
