// The local stack's API keys are fixed (supabase/stack/keys.ts and local-keys.ts, docs/OPERATIONS.md "Local API keys"): minted from
// the public local secret with fixed claims, they are the same on every start and after `npm run reset`, and the
// gateway takes them; a key minted from another secret is refused.
import { decodeJwt, jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { localJwtSecret, localKeyExpires, localKeyIssuedAt } from '../../supabase/stack/local-keys.ts';
import { stack } from '../helpers/stack.ts';

const secret = new TextEncoder().encode(localJwtSecret);

describe('the local API keys', () => {
  it('are signed with the fixed local secret, with fixed claims: the same on every start', async () => {
    for (const [key, role] of [[stack.anonKey, 'anon'], [stack.serviceRoleKey, 'service_role']] as const) {
      await expect(jwtVerify(key, secret)).resolves.toBeDefined();
      expect(decodeJwt(key)).toEqual({ role, iss: 'supabase', iat: localKeyIssuedAt, exp: localKeyExpires });
    }
  });

  it('open the gateway; a key minted from another secret does not', async () => {
    const read = (key: string) =>
      fetch(`${stack.apiUrl}/rest/v1/posts?select=id&limit=1`, {
        headers: { apikey: key, Authorization: `Bearer ${key}` },
      });
    expect((await read(stack.anonKey)).status).toBe(200);
    const forged = await new SignJWT({ role: 'anon', iss: 'supabase' }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt(localKeyIssuedAt).setExpirationTime(localKeyExpires).sign(
        new TextEncoder().encode('another-secret-of-at-least-32-characters'),
      );
    expect((await read(forged)).status).toBe(401);
  });
});
