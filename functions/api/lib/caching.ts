// What a client or a cache may keep of an answer (docs/API.md, "Caching"): every answer says it in Cache-Control,
// and a read's JSON carries an ETag, so that a client sending it back in If-None-Match is answered 304 with no
// body when nothing changed. The read still runs (its request counts, its rules are applied again): a 304 saves
// the transfer and the client's parsing, not the database's work, and no answer is ever served from a copy the
// facade keeps.
import type { MiddlewareHandler } from 'hono';

/**
 * The reads whose answer holds the account's secrets (its e-mail, its devices' addresses, its second factors, its
 * whole archive): no copy kept anywhere (no-store), hence no ETag either. The document says so per operation.
 */
export const noStoreOperations = ['getCurrentUser', 'listSessions', 'listFactors', 'exportAccount'];

/** Cache-Control of a read's answer when its route says none: see `caching`. */
export const cacheControl = {
  /** Anyone's read: the same for every caller without a token; kept, but asked about each time. */
  anonymous: 'public, no-cache',
  /** A signed-in caller's read: for that caller's own cache alone, asked about each time. */
  personal: 'private, no-cache',
  /** Every write, every refusal, and the reads of `noStoreOperations`. */
  none: 'no-store',
};

/** The headers a 304 keeps of the 200 it stands for: what a cache updates, and what a page may read. */
const kept = /^(cache-control|date|etag|expires|vary|x-request-id|ratelimit-.*|access-control-.*)$/;

/** The ETag of a body: its SHA-256, base64url (a strong validator: equal bytes, equal tags). */
async function entityTag(body: ArrayBuffer): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', body));
  return `"${btoa(String.fromCharCode(...digest)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}"`;
}

/** Whether If-None-Match names `etag` (a weak comparison, as RFC 9110 has it for If-None-Match), or is `*`. */
function named(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * Cache-Control on every answer that has none from its route (a successful read: public or private, no-cache;
 * anything else: no-store), `Vary: Authorization` on the reads, and on a read's JSON 200 an ETag, answered 304
 * when If-None-Match names it.
 */
export const caching: MiddlewareHandler = async (c, next) => {
  await next();
  const read = c.req.method === 'GET' && c.res.status === 200;
  if (!c.res.headers.has('Cache-Control')) {
    const personal = c.req.header('Authorization') !== undefined;
    c.res.headers.set(
      'Cache-Control',
      read ? (personal ? cacheControl.personal : cacheControl.anonymous) : cacheControl.none,
    );
  }
  if (!read) return;
  c.res.headers.append('Vary', 'Authorization');
  if (
    /no-store/.test(c.res.headers.get('Cache-Control') ?? '') ||
    !c.res.headers.get('Content-Type')?.startsWith('application/json')
  ) return;
  const etag = await entityTag(await c.res.clone().arrayBuffer());
  if (!named(c.req.header('If-None-Match'), etag)) {
    c.res.headers.set('ETag', etag);
    return;
  }
  await c.res.body?.cancel();
  // Hono keeps the headers of the answer it replaces: those a 304 does not carry are dropped.
  c.res = new Response(null, { status: 304, headers: { ETag: etag } });
  for (const name of [...c.res.headers.keys()]) if (!kept.test(name)) c.res.headers.delete(name);
};
