// Accounts for database tests, made through the real Supabase Auth: created confirmed by the admin API,
// then signed in with a password, so each actor carries the claims of a real session.
import { AuthClient } from '@supabase/auth-js';
import { decodeJwt } from 'jose';
import type { Actor } from './db.ts';
import { asRoot } from './db.ts';
import { stack } from './stack.ts';
import { authClient, defaultPassword, uniqueEmail } from './users.ts';

const admin = new AuthClient({
  url: `${stack.apiUrl}/auth/v1`,
  headers: { apikey: stack.serviceRoleKey, Authorization: `Bearer ${stack.serviceRoleKey}` },
  persistSession: false,
  autoRefreshToken: false,
}).admin;

export interface Account extends Actor {
  id: string;
  username: string;
  email: string;
  accessToken: string;
}

let counter = 0;

/** A fresh username of `label` plus a unique suffix (3 to 30 of a-z 0-9 . _). */
export function uniqueUsername(label: string): string {
  counter += 1;
  return `${label}_${Date.now().toString(36)}${counter}`.toLowerCase().slice(0, 30);
}

export async function createAccount(
  label: string,
  options: { isPrivate?: boolean; timeZone?: string } = {},
): Promise<Account> {
  const email = uniqueEmail(label);
  const username = uniqueUsername(label);
  const { id } = await makeAccount({ email, username, password: defaultPassword, timeZone: options.timeZone });
  if (options.isPrivate) await asRoot`update public.profiles set is_private = true where id = ${id}`;
  const signedIn = await authClient().signInWithPassword({ email, password: defaultPassword });
  if (signedIn.error) throw signedIn.error;
  const accessToken = signedIn.data.session.access_token;
  return { name: label, role: 'authenticated', claims: decodeJwt(accessToken), id, username, email, accessToken };
}

export async function makeAdmin(account: Account): Promise<void> {
  await asRoot`insert into private.admins (user_id) values (${account.id})`;
}

/**
 * An account that writes as a load generator (the fault suite's writers): trusted by an admin in Studio, so the
 * write limits (supabase/schemas/24_write_limits.sql) do not stop it; they are tested on their own.
 */
export async function createLoadWriter(label: string): Promise<Account> {
  const account = await createAccount(label);
  await asRoot`select moderation.trust_writer(${account.username}, 'a load generator of the fault suite')`;
  return account;
}

/** A ban as an admin in Studio makes it (the API's admin functions are tested separately). */
export async function banDirectly(account: Account): Promise<void> {
  await asRoot`select moderation.ban_user(${account.username}, 'banned by a test')`;
}

/** A confirmed account with exactly these e-mail, username and password (a demo account of the README, say). */
export async function makeAccount(
  fields: { email: string; username: string; password: string; timeZone?: string },
): Promise<{ id: string }> {
  const created = await admin.createUser({
    email: fields.email,
    password: fields.password,
    email_confirm: true,
    user_metadata: { username: fields.username, time_zone: fields.timeZone ?? 'UTC' },
  });
  if (created.error) throw created.error;
  return { id: created.data.user.id };
}

/**
 * A bcrypt hash (cost 4) of a password nobody uses, for accounts written into `auth.users` in bulk: an account
 * without one is given an unknowable password at Auth's cost (private.give_unknowable_password), some 50 ms each.
 */
export const importedPasswordHash = '$2a$04$Ykf8J5mfW0K/8UEby00MmuC3z0vhxmDlWvZYGPWo4xiEJCloDrAw6';
