// The local stand-in for hosted Supabase's API gateway: one origin where Auth answers under /auth/v1 and
// Edge Functions under /functions/v1, as on a hosted project. It also serves supabase/templates, because
// Supabase Auth fetches its e-mail templates by URL.
import { Hono } from 'hono';
import { proxy } from 'hono/proxy';
import { join } from 'node:path';
import { repoRoot } from './config.ts';

export interface GatewayUpstreams {
  auth: string;
  functions: string;
  /** The one API key whose holder may name the client in Sb-Forwarded-For (hosted: a secret key). */
  forwardingKey: string;
}

function unavailable(service: string) {
  return Response.json(
    { error: { code: 'service_unavailable', message: `${service} is not running in this local stack` } },
    { status: 503 },
  );
}

/** Forwards a request to `upstream`, dropping the gateway's path prefix. */
function forward(prefix: string, upstream: string, service: string, forwardingKey: string) {
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
  gateway.get('/email/:file{[a-z_]+\\.html}', async (c) => {
    const body = await Deno.readTextFile(join(repoRoot, 'supabase', 'templates', c.req.param('file'))).catch(() => null);
    return body === null ? c.notFound() : c.html(body);
  });
  return gateway;
}

export function serveGateway(port: number, upstreams: GatewayUpstreams): Deno.HttpServer {
  const gateway = createGateway(upstreams);
  return Deno.serve({ hostname: '127.0.0.1', port, onListen: () => {} }, (request, info) =>
    gateway.fetch(request, { remoteAddr: info.remoteAddr as Deno.NetAddr }));
}
