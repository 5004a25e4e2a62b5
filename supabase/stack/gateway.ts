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
}

function unavailable(service: string) {
  return Response.json(
    { error: { code: 'service_unavailable', message: `${service} is not running in this local stack` } },
    { status: 503 },
  );
}

/** Forwards a request to `upstream`, dropping the gateway's path prefix. */
function forward(prefix: string, upstream: string, service: string) {
  return async (c: { req: { url: string; raw: Request }; env: { remoteAddr?: Deno.NetAddr } }) => {
    const url = new URL(c.req.url);
    const target = `${upstream}${url.pathname.slice(prefix.length)}${url.search}`;
    try {
      // A new request rather than the incoming one: its abort signal must not cut the upstream call short.
      const { method, body } = c.req.raw;
      const headers = new Headers(c.req.raw.headers);
      // As hosted Supabase's gateway does: tell the service who the client is.
      if (!headers.has('x-forwarded-for') && c.env.remoteAddr) headers.set('x-forwarded-for', c.env.remoteAddr.hostname);
      // redirect: 'manual' hands redirects to the client, as a gateway must.
      return await proxy(target, { method, headers, body, duplex: 'half', redirect: 'manual' } as RequestInit);
    } catch {
      return unavailable(service);
    }
  };
}

export function createGateway(upstreams: GatewayUpstreams) {
  const gateway = new Hono<{ Bindings: { remoteAddr?: Deno.NetAddr } }>();
  gateway.all('/auth/v1/*', forward('/auth/v1', upstreams.auth, 'Supabase Auth'));
  gateway.all('/functions/v1/*', forward('/functions/v1', upstreams.functions, 'The api function'));
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
