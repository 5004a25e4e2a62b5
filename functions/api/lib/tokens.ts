// Who is calling: the access token Supabase Auth issued, verified here (signature, expiry, audience, issuer) before
// the database is asked anything. ES256/RS256 tokens are checked against Auth's public keys (JWKS); HS256
// only when the project still has a legacy secret configured. Anything else, `alg: none` included, is refused.
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import { ApiError } from './errors.ts';
import { createTokenCache } from './token-cache.ts';

export type Caller =
  | { role: 'anon' | 'service_role'; claims: Record<string, unknown> }
  | { role: 'authenticated'; userId: string; sessionId: string; claims: JWTPayload };

export const anonymous: Caller = { role: 'anon', claims: {} };

/** The facade itself, for the lookups no client may make (the e-mail behind a username). */
export const server: Caller = { role: 'service_role', claims: {} };

export interface TokenVerifierOptions {
  authUrl: string;
  jwks?: { keys: Record<string, unknown>[] };
  jwtSecret?: string;
}

const audience = 'authenticated';
/** Verified tokens kept per function instance: about 1.6 KB each (the token and its claims), so at most 16 MB. */
const cachedTokens = 10_000;
/** A token unused this long leaves the cache: its client has refreshed, signed out or gone quiet. */
const tokenIdleMs = 5 * 60_000;

function invalidToken(message = 'The access token is invalid or expired'): ApiError {
  return new ApiError(401, 'invalid_token', message);
}

/** jose and the keys a token's signature is checked against, made when the first token comes. */
async function loadVerification(options: TokenVerifierOptions) {
  const jose = await import('jose');
  // Fetched keys are kept for good and fetched again only for a token signed with a key they lack (at most
  // every 30 s), so that tokens keep being verified while Auth is down.
  const publicKeys: JWTVerifyGetKey = options.jwks
    ? jose.createLocalJWKSet(options.jwks as Parameters<typeof jose.createLocalJWKSet>[0])
    : jose.createRemoteJWKSet(new URL(`${options.authUrl}/.well-known/jwks.json`), {
      cacheMaxAge: Infinity,
      timeoutDuration: 3000,
    });
  return { jose, publicKeys };
}

export function createTokenVerifier(options: TokenVerifierOptions) {
  // jose is imported with the first token: a cold start whose first request carries none (a health check, an
  // anonymous read) does not load it.
  let verification: ReturnType<typeof loadVerification> | undefined;
  const secret = options.jwtSecret ? new TextEncoder().encode(options.jwtSecret) : undefined;
  // This project's Auth: a token another project's Auth signed with a key we trust is still refused.
  const issuer = options.authUrl;

  async function verifySignature(token: string): Promise<JWTPayload> {
    const { jose, publicKeys } = await (verification ??= loadVerification(options));
    try {
      const verified = await jose.jwtVerify(token, publicKeys, { audience, issuer, algorithms: ['ES256', 'RS256'] })
        .catch((error) => {
          if (!secret) throw error;
          return jose.jwtVerify(token, secret, { audience, issuer, algorithms: ['HS256'] });
        });
      return verified.payload;
    } catch (error) {
      // Auth's keys could not be fetched (no answer, or not a 200): nothing is known about the token yet.
      const { errors } = jose;
      const unfetched = error instanceof errors.JWKSTimeout || error instanceof TypeError ||
        (error instanceof errors.JOSEError && error.code === 'ERR_JOSE_GENERIC');
      if (unfetched) {
        throw new ApiError(503, 'auth_unavailable', "The authentication service's keys cannot be fetched");
      }
      throw invalidToken();
    }
  }

  const verified = createTokenCache<Caller>(cachedTokens, tokenIdleMs);

  return async function verify(token: string): Promise<Caller> {
    const known = verified.get(token);
    if (known) return known;
    const claims = await verifySignature(token);
    const userId = claims.sub;
    const sessionId = claims.session_id;
    if (claims.role !== 'authenticated' || !isUuid(userId) || !isUuid(sessionId)) {
      throw invalidToken('The access token is not a user session token');
    }
    const caller: Caller = { role: 'authenticated', userId, sessionId, claims };
    // Kept while in use, until it expires; a token without exp (Auth always sets one) is verified every time.
    if (typeof claims.exp === 'number') verified.set(token, caller, claims.exp * 1000);
    return caller;
  };
}

export type TokenVerifier = ReturnType<typeof createTokenVerifier>;

/** Auth's user and session ids are uuids; a signed token with anything else is no session of ours. */
function isUuid(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}

/** The bearer token of a request, if any; a malformed Authorization header is an error, not anonymity. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const bearer = /^Bearer +(\S+)$/i.exec(header.trim());
  if (!bearer) throw invalidToken('The Authorization header must be "Bearer <access token>"');
  if (!/^[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]*$/.test(bearer[1])) {
    throw invalidToken('The bearer token is not an access token (a JWT: three parts separated by dots)');
  }
  return bearer[1];
}
