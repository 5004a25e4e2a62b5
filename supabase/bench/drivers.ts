// The accounts that drive the load sign up through the real Supabase Auth (its admin API with the
// service_role key, confirmed, as test/helpers/accounts.ts does) and sign in with a password, so each has a
// real session and access token. Run after run (--keep), the accounts stay and only sign in again.
import { decodeJwt } from 'jose';
import type { Stack } from '../stack/stack.ts';
import type { Identity } from './identity.ts';

export interface Driver {
  username: string;
  email: string;
  id: string;
  accessToken: string;
  /** The session's refresh token (the soak refreshes and signs in again as an app does). */
  refreshToken: string;
  identity: Identity;
}

export const driverPassword = 'bench driver password';

async function signUp(stack: Stack, username: string, email: string, tries = 3): Promise<void> {
  const response = await fetch(`${stack.urls.auth}/admin/users`, {
    method: 'POST',
    headers: {
      apikey: stack.keys.serviceRoleKey,
      Authorization: `Bearer ${stack.keys.serviceRoleKey}`,
      'Content-Type': 'application/json',
    },
    body: JSON.stringify({
      email,
      password: driverPassword,
      email_confirm: true,
      user_metadata: { username, time_zone: 'UTC' },
    }),
  });
  const body = await response.json();
  // Auth answers 504 when hashing passwords overruns its request timeout on a busy machine, and asks to retry (an
  // account it made meanwhile answers email_exists then); sign-ins likewise.
  if (body.error_code === 'request_timeout' && tries > 1) return signUp(stack, username, email, tries - 1);
  if (!response.ok && body.error_code !== 'email_exists') {
    throw new Error(`sign-up of ${username}: ${JSON.stringify(body)}`);
  }
}

async function signIn(stack: Stack, username: string, email: string, tries = 3): Promise<Driver> {
  const response = await fetch(`${stack.urls.auth}/token?grant_type=password`, {
    method: 'POST',
    headers: { apikey: stack.keys.anonKey, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password: driverPassword }),
  });
  const body = await response.json();
  if (body.error_code === 'request_timeout' && tries > 1) return signIn(stack, username, email, tries - 1);
  if (!response.ok) throw new Error(`sign-in of ${username}: ${JSON.stringify(body)}`);
  const claims = decodeJwt(body.access_token) as Record<string, unknown>;
  return {
    username,
    email,
    id: body.user.id,
    accessToken: body.access_token,
    refreshToken: body.refresh_token,
    identity: { role: 'authenticated', claims },
  };
}

/** `count` drivers, driver01 first: it is also the reader the read endpoints run as. */
export async function signUpDrivers(stack: Stack, count: number, prefix = 'driver'): Promise<Driver[]> {
  const digits = Math.max(2, String(count).length);
  const drivers: Driver[] = [];
  // Eight at a time: each is a bcrypt hash or two, and a machine's cores are shared with the load to come.
  for (let first = 0; first < count; first += 8) {
    drivers.push(
      ...await Promise.all(Array.from({ length: Math.min(8, count - first) }, async (_, k) => {
        const username = `${prefix}${String(first + k + 1).padStart(digits, '0')}`;
        const email = `${username}@bench.daykeeper.test`;
        await signUp(stack, username, email);
        return signIn(stack, username, email);
      })),
    );
  }
  return drivers;
}

/** Ends every session of the driver's account (each run signs in again: its sessions would pile up). */
export async function signOutEverywhere(stack: Stack, driver: Driver): Promise<void> {
  const response = await fetch(`${stack.urls.auth}/logout?scope=global`, {
    method: 'POST',
    headers: { apikey: stack.keys.anonKey, Authorization: `Bearer ${driver.accessToken}` },
  });
  await response.body?.cancel();
  if (!response.ok) throw new Error(`sign-out of ${driver.username}: ${response.status}`);
}
