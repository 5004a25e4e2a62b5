// Keys of one local stack. As `supabase start` does, the legacy HS256 secret Auth still requires is a fixed,
// public, local-only value, and the anon and service_role API keys are minted from it with fixed claims: they
// are the same on every machine and survive `npm run reset`, so a pasted anon key keeps working. They guard
// nothing, and must never be used outside the local stack (a hosted project has keys of its own). What is
// made on a stack's first start and kept in .local/<profile>/keys.json (ignored, never committed): an ES256
// signing key for Supabase Auth's sessions (from `supabase gen signing-key`, as hosted projects use) and the
// Send Email hook's secret.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { repoRoot } from './config.ts';
import { localJwtSecret, localKeyExpires, localKeyIssuedAt } from './local-keys.ts';

export interface Jwk {
  kty: string;
  kid: string;
  alg: string;
  crv?: string;
  x?: string;
  y?: string;
  d?: string;
  k?: string;
  use?: string;
  key_ops?: string[];
}

export interface StackKeys {
  jwtSecret: string;
  signingKey: Jwk;
  anonKey: string;
  serviceRoleKey: string;
  /** What Auth signs its Send Email hook's requests with, and the function checks (`v1,whsec_<base64>`). */
  sendEmailHookSecret: string;
}

async function generateSigningKey(): Promise<Jwk> {
  const cli = join(repoRoot, 'node_modules', '.bin', 'supabase');
  const output = await new Deno.Command(cli, {
    args: ['gen', 'signing-key', '--algorithm', 'ES256'],
    cwd: repoRoot,
    stdin: 'null',
  }).output();
  const text = new TextDecoder().decode(output.stdout);
  const line = text.split('\n').find((l) => l.trim().startsWith('{'));
  if (!output.success || !line) {
    throw new Error(`supabase gen signing-key failed: ${new TextDecoder().decode(output.stderr)}`);
  }
  return JSON.parse(line);
}

/** An API key of the local stack: HS256 is deterministic, so the same role always gets the same key. */
function localApiKey(role: 'anon' | 'service_role'): Promise<string> {
  return new SignJWT({ role, iss: 'supabase' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(localKeyIssuedAt)
    .setExpirationTime(localKeyExpires)
    .sign(new TextEncoder().encode(localJwtSecret));
}

function hookSecret(): string {
  return `v1,whsec_${btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))}`;
}

/** What a stack makes on its first start and keeps: the session signing key and the hook's secret. */
type MadeKeys = Pick<StackKeys, 'signingKey' | 'sendEmailHookSecret'>;

async function madeKeys(dir: string): Promise<MadeKeys> {
  const path = join(dir, 'keys.json');
  // Files written before the keys were fixed also hold a random secret and keys minted from it: ignored.
  const kept: Partial<MadeKeys> = existsSync(path) ? JSON.parse(await Deno.readTextFile(path)) : {};
  if (kept.signingKey && kept.sendEmailHookSecret) {
    return { signingKey: kept.signingKey, sendEmailHookSecret: kept.sendEmailHookSecret };
  }
  const made = {
    signingKey: kept.signingKey ?? await generateSigningKey(),
    sendEmailHookSecret: kept.sendEmailHookSecret ?? hookSecret(),
  };
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(path, JSON.stringify(made, null, 2), { mode: 0o600 });
  return made;
}

export async function stackKeys(dir: string): Promise<StackKeys> {
  return {
    jwtSecret: localJwtSecret,
    anonKey: await localApiKey('anon'),
    serviceRoleKey: await localApiKey('service_role'),
    ...await madeKeys(dir),
  };
}

/** The public half of the signing key, as Auth publishes it at /.well-known/jwks.json. */
export function publicJwks(keys: StackKeys): { keys: Jwk[] } {
  const { d: _private, ...publicKey } = keys.signingKey;
  return { keys: [{ ...publicKey, key_ops: ['verify'] }] };
}

/**
 * What PostgREST verifies tokens with: the public signing key (user sessions, ES256) and the legacy HS256
 * secret as an `oct` key (the anon and service_role API keys), in one JWK set.
 */
export function postgrestJwks(keys: StackKeys): { keys: Jwk[] } {
  const secret = btoa(keys.jwtSecret).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  return {
    keys: [...publicJwks(keys).keys, { kty: 'oct', kid: 'legacy-hs256', alg: 'HS256', k: secret, key_ops: ['verify'] }],
  };
}
