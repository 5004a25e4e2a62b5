import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/http.ts';
import { authIsRunning } from '../helpers/stack.ts';
import { signUpConfirmed, uniqueEmail } from '../helpers/users.ts';

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

const claims = {
  sub: crypto.randomUUID(),
  role: 'authenticated',
  aud: 'authenticated',
  session_id: crypto.randomUUID(),
  exp: Math.floor(Date.now() / 1000) + 3600,
};

describe('GET /auth/user without a valid token', () => {
  it('answers 401 unauthorized without an Authorization header', async () => {
    const response = await api('GET', '/auth/user');
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('unauthorized');
  });

  it('answers 401 invalid_token for a header that is not a bearer token', async () => {
    const response = await api('GET', '/auth/user', { headers: { Authorization: 'Basic dXNlcjpwYXNz' } });
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('invalid_token');
  });

  it('answers 401 invalid_token for an unsigned token (alg: none)', async () => {
    const token = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claims)}.`;
    const response = await api('GET', '/auth/user', { token });
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('invalid_token');
  });

  it('answers 401 invalid_token for a token signed with a key Auth does not publish', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const kid = (await exportJWK(publicKey)).x;
    const token = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid }).sign(privateKey);
    const response = await api('GET', '/auth/user', { token });
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('invalid_token');
  });

  it('answers 401 invalid_token for an HS256 token when no legacy secret is configured', async () => {
    const secret = new TextEncoder().encode('a-secret-that-is-long-enough-to-sign-with-hs256');
    const token = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(secret);
    const response = await api('GET', '/auth/user', { token });
    expect(response.status).toBe(401);
  });
});

describe.skipIf(!authIsRunning)('GET /auth/user with a session from Supabase Auth', () => {
  const email = uniqueEmail('e2e');
  let accessToken = '';
  let userId = '';

  beforeAll(async () => {
    // Sign up through Auth, read the 6-digit code from Mailpit, verify it: a real session.
    const session = await signUpConfirmed(email);
    accessToken = session.access_token;
    userId = session.user.id;
  });

  it('answers 200 with the caller as the database sees them, own e-mail included', async () => {
    const response = await api('GET', '/auth/user', { token: accessToken });
    expect(response.status).toBe(200);
    expect(response.body.user).toEqual({ id: userId, email });
    expect(response.body.profile).toMatchObject({ id: userId, email, viewer: null });
  });

  it('reads the scheme case-insensitively, as RFC 9110 says', async () => {
    for (const scheme of ['bearer', 'BEARER']) {
      const response = await api('GET', '/auth/user', { headers: { Authorization: `${scheme} ${accessToken}` } });
      expect([scheme, response.status]).toEqual([scheme, 200]);
    }
  });

  it('answers 401 when the same token has one character of its signature changed', async () => {
    const last = accessToken.at(-2) === 'A' ? 'B' : 'A';
    const tampered = `${accessToken.slice(0, -2)}${last}${accessToken.at(-1)}`;
    const response = await api('GET', '/auth/user', { token: tampered });
    expect(response.status).toBe(401);
  });
});
