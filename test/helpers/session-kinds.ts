// Sessions of every kind a thief may hold a token of, made through the real Supabase Auth, and the doors besides
// the facade a token opens: Auth's own endpoints (/auth/v1, as supabase-js calls them) and PostgREST (/rest/v1).
import { createClient } from '@supabase/supabase-js';
import { decodeJwt } from 'jose';
import { TOTP } from 'otpauth';
import { expect } from 'vitest';
import type { Database } from '../../client/database.ts';
import type { Account } from './accounts.ts';
import { asRoot } from './db.ts';
import { api, apiFrom, requestFrom } from './http.ts';
import { latestCode } from './mailpit.ts';
import { waitOutMailInterval } from './reset-codes.ts';
import { stack } from './stack.ts';
import { defaultPassword, uniqueEmail } from './users.ts';

/** The authenticator's current code for `secret`. */
export const codeOf = (secret: string) => new TOTP({ secret }).generate();

/**
 * Where a request comes from: a loopback address of its own (127.0.0.2…), so that Auth's per-address limits
 * (`[auth.rate_limit]`) count it apart; the default address when absent.
 */
export type Source = string | undefined;

/** Supabase Auth's own endpoint, through the gateway, as supabase-js calls it. */
export async function authCall(
  method: string,
  path: string,
  options: { token?: string; json?: unknown; source?: Source } = {},
) {
  const headers = {
    apikey: stack.anonKey,
    Authorization: `Bearer ${options.token ?? stack.anonKey}`,
    'X-Supabase-Api-Version': '2024-01-01',
  };
  const url = `${stack.apiUrl}/auth/v1${path}`;
  if (options.source) return await requestFrom(options.source, method, url, options.json, headers);
  const response = await fetch(url, {
    method,
    headers: { ...headers, ...(options.json === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: options.json === undefined ? undefined : JSON.stringify(options.json),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** The facade, from `source`. */
export const facade = (
  source: Source,
  method: string,
  path: string,
  options: { token?: string; json?: unknown } = {},
) => source ? apiFrom(source, method, path, options) : api(method, path, options);

/** PostgREST as a supabase-js client holding only `token`. */
export function rest(token: string) {
  return createClient<Database>(stack.apiUrl, stack.anonKey, {
    global: { headers: { Authorization: `Bearer ${token}` } },
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  });
}

/** An account as a Google sign-up makes it: confirmed, its provider Google, no password stored. */
export async function googleAccount(source?: Source): Promise<Account> {
  const email = uniqueEmail('google');
  const created = await authCall('POST', '/admin/users', {
    source,
    token: stack.serviceRoleKey,
    json: { email, email_confirm: true, app_metadata: { provider: 'google', providers: ['google'] } },
  });
  expect(created.status).toBe(200);
  // Auth's admin API gives a random password; a Google sign-up stores none, as here.
  await asRoot`update auth.users set encrypted_password = '' where id = ${created.body.id}`;
  const [{ username }] = await asRoot`select username from public.profiles where id = ${created.body.id}`;
  return { id: created.body.id, email, username } as Account;
}

/** A session begun with Google, as Auth records one (its `oauth` claim): Google cannot be reached from here. */
export async function googleSession(account: Account, source?: Source): Promise<CodeSession> {
  const session = await codeSession(account, source);
  await asRoot`update auth.mfa_amr_claims set authentication_method = 'oauth' where session_id = ${session.sessionId}`;
  return session;
}

/** A password sign-in through the facade. */
export async function logIn(account: Account, password = defaultPassword, source?: Source) {
  return await facade(source, 'POST', '/auth/login', { json: { login: account.username, password } });
}

export const signsInWith = async (account: Account, password: string) => (await logIn(account, password)).status;

/** `account` with a verified authenticator, its owner proving it with the password; the aal2 token and the secret. */
export async function withFactor(account: Account, source?: Source) {
  const enrolled = await facade(source, 'POST', '/user/mfa/totp', {
    token: account.accessToken,
    json: { current_password: defaultPassword },
  });
  const verified = await facade(source, 'POST', `/user/mfa/${enrolled.body.id}/verify`, {
    token: account.accessToken,
    json: { code: codeOf(enrolled.body.secret) },
  });
  expect(verified.status).toBe(200);
  // As if the codes of that time step were past: a factor accepts a code once (31_second_factor_checks.sql).
  await asRoot`update private.factor_code_checks set last_accepted_step = last_accepted_step - 3 where factor_id = ${enrolled.body.id}`;
  return {
    id: enrolled.body.id as string,
    secret: enrolled.body.secret as string,
    aal2: verified.body.session.access_token as string,
  };
}

/** Whether `token` still acts as its user, asked of the facade and of PostgREST. */
export async function stillWorks(token: string): Promise<[number, number]> {
  const me = await rest(token).rpc('me');
  return [(await api('GET', '/auth/user', { token })).status, me.status];
}

export interface CodeSession {
  access: string;
  refresh: string;
  sessionId: string;
}

/** The code of a mail Auth sends `account` when asked `path` with `json`, its minute slot and interval waited out. */
async function mailedCode(account: Account, path: string, json: unknown, source: Source): Promise<string> {
  await asRoot`delete from private.code_mails where user_id = ${account.id}`;
  await waitOutMailInterval(account);
  const since = new Date();
  expect((await authCall('POST', path, { json, source })).status).toBe(200);
  return await latestCode(account.email, since);
}

async function verified(json: Record<string, string>, source: Source): Promise<CodeSession> {
  const answer = await authCall('POST', '/verify', { json, source });
  expect(answer.status).toBe(200);
  const sessionId = decodeJwt(answer.body.access_token).session_id as string;
  return { access: answer.body.access_token, refresh: answer.body.refresh_token, sessionId };
}

/** A session begun with a code e-mailed by `signInWithOtp` (sign-in by e-mail, as a magic link's code is). */
export async function codeSession(account: Account, source?: Source): Promise<CodeSession> {
  const token = await mailedCode(account, '/otp', { email: account.email, create_user: false }, source);
  return await verified({ type: 'email', email: account.email, token }, source);
}

/** A session begun with the code of a password-reset (recovery) mail, as `resetPasswordForEmail` sends it. */
export async function recoverySession(account: Account, source?: Source): Promise<CodeSession> {
  const token = await mailedCode(account, '/recover', { email: account.email }, source);
  return await verified({ type: 'recovery', email: account.email, token }, source);
}

/** As if the code that began the session had been e-mailed `minutes` ago. */
export async function codeAged(sessionId: string, minutes: number) {
  await asRoot`update auth.mfa_amr_claims set created_at = now() - make_interval(mins => ${minutes})
    where session_id = ${sessionId}`;
}

/** The session refreshed through Auth's own door, as supabase-js refreshes it. */
export async function refreshed(session: CodeSession, source?: Source): Promise<CodeSession> {
  const answer = await authCall('POST', '/token?grant_type=refresh_token', {
    json: { refresh_token: session.refresh },
    source,
  });
  expect(answer.status).toBe(200);
  return { access: answer.body.access_token, refresh: answer.body.refresh_token, sessionId: session.sessionId };
}
