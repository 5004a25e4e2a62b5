// Keys of one local stack, generated on its first start and never committed (.local/ is ignored):
// an ES256 signing key for Supabase Auth (from `supabase gen signing-key`, as hosted projects use),
// the legacy HS256 secret Auth still requires, and the anon and service_role API keys signed with it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { repoRoot } from './config.ts';

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

function apiKey(role: 'anon' | 'service_role', secret: string): Promise<string> {
  const tenYears = 10 * 365 * 24 * 3600;
  return new SignJWT({ role, iss: 'supabase' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + tenYears)
    .sign(new TextEncoder().encode(secret));
}

function randomSecret(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, '0')).join('');
}

function hookSecret(): string {
  return `v1,whsec_${btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))}`;
}

export async function stackKeys(dir: string): Promise<StackKeys> {
  const path = join(dir, 'keys.json');
  if (existsSync(path)) {
    const kept: StackKeys = JSON.parse(await Deno.readTextFile(path));
    if (kept.sendEmailHookSecret) return kept;
    // Keys made before the Send Email hook: the secret is added, the rest kept.
    const keys = { ...kept, sendEmailHookSecret: hookSecret() };
    await Deno.writeTextFile(path, JSON.stringify(keys, null, 2), { mode: 0o600 });
    return keys;
  }
  const jwtSecret = randomSecret();
  const keys: StackKeys = {
    jwtSecret,
    signingKey: await generateSigningKey(),
    anonKey: await apiKey('anon', jwtSecret),
    serviceRoleKey: await apiKey('service_role', jwtSecret),
    sendEmailHookSecret: hookSecret(),
  };
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(path, JSON.stringify(keys, null, 2), { mode: 0o600 });
  return keys;
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
  return { keys: [...publicJwks(keys).keys, { kty: 'oct', kid: 'legacy-hs256', alg: 'HS256', k: secret, key_ops: ['verify'] }] };
}
