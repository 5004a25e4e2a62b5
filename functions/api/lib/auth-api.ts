// Supabase Auth's REST API, as the facade uses it. Auth does the work (passwords, codes, tokens, mails);
// this module only calls it and turns its answers into the facade's errors. The client's IP is forwarded
// so that Auth's per-IP rate limits apply per client, not to the facade as a whole.
import type { Env } from '../env.ts';
import { ApiError } from './errors.ts';

export interface AuthSession {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  expires_at: number;
  user: AuthUser;
}

export interface AuthUser {
  id: string;
  email?: string;
  email_confirmed_at?: string | null;
  created_at?: string;
  factors?: AuthFactor[];
}

/** A second factor as Auth records it (auth.mfa_factors): unverified until its first code is verified. */
export interface AuthFactor {
  id: string;
  friendly_name?: string;
  factor_type: string;
  status: 'verified' | 'unverified';
  created_at: string;
}

/** A TOTP factor just enrolled: the secret to load into an authenticator app, as a URI and a QR code. */
export interface TotpEnrollment {
  id: string;
  type: 'totp';
  friendly_name?: string;
  totp: { qr_code: string; secret: string; uri: string };
}

/** An error Supabase Auth answered with: its HTTP status and its stable `code` (error_code). */
export class AuthError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

interface CallOptions {
  method?: string;
  body?: unknown;
  /** A user's access token, for the endpoints that act as the user. */
  token?: string;
  /** Call an admin endpoint with the service role key. */
  admin?: boolean;
  clientIp?: string;
  /** The client's own User-Agent, for a call that makes a session: Auth records it with the session. */
  userAgent?: string;
}

/** How long a call to Auth may take before the request is answered 503 auth_unavailable. */
const authDeadlineMs = 5_000;

export function createAuthApi(env: Env) {
  const base = `${env.SUPABASE_URL}/auth/v1`;

  async function call<T>(path: string, options: CallOptions = {}): Promise<T> {
    const key = options.admin ? env.SUPABASE_SERVICE_ROLE_KEY : env.SUPABASE_ANON_KEY;
    const headers: Record<string, string> = {
      apikey: key,
      Authorization: `Bearer ${options.token ?? key}`,
      // Errors as { code, message } with Auth's stable error codes.
      'X-Supabase-Api-Version': '2024-01-01',
    };
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    if (options.userAgent) headers['User-Agent'] = options.userAgent;
    if (options.clientIp) {
      // The gateway lets only a secret-key holder name the client (docs/ACCOUNTS-SECURITY.md, "Client IP and rate
      // limits").
      headers.apikey = env.AUTH_FORWARDING_KEY ?? env.SUPABASE_SERVICE_ROLE_KEY;
      headers['Sb-Forwarded-For'] = options.clientIp;
    }
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${base}${path}`, {
        method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(authDeadlineMs),
      });
      text = await response.text();
    } catch {
      throw new ApiError(
        503,
        'auth_unavailable',
        'The authentication service cannot be reached or did not answer in time',
        undefined,
        5,
      );
    }
    const json = text ? JSON.parse(text) : {};
    if (!response.ok) {
      throw new AuthError(
        response.status,
        String(json.code ?? json.error_code ?? 'unknown'),
        String(json.message ?? json.msg ?? ''),
      );
    }
    return json as T;
  }

  return {
    signUp: (email: string, password: string, data: Record<string, unknown>, clientIp?: string) =>
      call<AuthUser>('/signup', { body: { email, password, data }, clientIp }),
    verify: (
      type: 'signup' | 'recovery' | 'magiclink' | 'email_change',
      email: string,
      token: string,
      clientIp?: string,
      userAgent?: string,
    ) => call<AuthSession>('/verify', { body: { type, email, token }, clientIp, userAgent }),
    signIn: (email: string, password: string, clientIp?: string, userAgent?: string) =>
      call<AuthSession>('/token?grant_type=password', { body: { email, password }, clientIp, userAgent }),
    refresh: (refreshToken: string, clientIp?: string, userAgent?: string) =>
      call<AuthSession>('/token?grant_type=refresh_token', {
        body: { refresh_token: refreshToken },
        clientIp,
        userAgent,
      }),
    recover: (email: string, clientIp?: string) => call<unknown>('/recover', { body: { email }, clientIp }),
    /** A sign-in code (Auth's magic-link e-mail, kind magiclink) to an existing account; never creates one. */
    signInCode: (email: string, clientIp?: string) =>
      call<unknown>('/otp', { body: { email, create_user: false }, clientIp }),
    resendSignup: (email: string, clientIp?: string) =>
      call<unknown>('/resend', { body: { type: 'signup', email }, clientIp }),
    /**
     * A new magic-link token of an existing account, e-mailed by nobody: the facade mails its code itself, with a
     * text that says what it is for (Auth's own magic-link e-mail is a sign-in link). It replaces the last one.
     */
    newMagicLinkCode: (email: string) =>
      call<{ email_otp: string }>('/admin/generate_link', { body: { type: 'magiclink', email }, admin: true }),
    logout: (token: string, scope: 'local' | 'global' | 'others') =>
      call<unknown>(`/logout?scope=${scope}`, { method: 'POST', token }),
    getUser: (token: string) => call<AuthUser>('/user', { token }),
    updateUser: (token: string, changes: Record<string, unknown>, clientIp?: string) =>
      call<AuthUser>('/user', { method: 'PUT', body: changes, token, clientIp }),
    /** Auth's MFA endpoints, as the user (supabase-js auth.mfa calls the same), each counted per client address. */
    enrollTotp: (token: string, friendlyName: string, clientIp?: string) =>
      call<TotpEnrollment>('/factors', { body: { factor_type: 'totp', friendly_name: friendlyName }, token, clientIp }),
    challenge: (token: string, factorId: string, clientIp?: string) =>
      call<{ id: string }>(`/factors/${factorId}/challenge`, { method: 'POST', body: {}, token, clientIp }),
    verifyFactor: (
      token: string,
      factorId: string,
      challengeId: string,
      code: string,
      clientIp?: string,
      userAgent?: string,
    ) =>
      call<AuthSession>(`/factors/${factorId}/verify`, {
        body: { challenge_id: challengeId, code },
        token,
        clientIp,
        userAgent,
      }),
    unenroll: (token: string, factorId: string, clientIp?: string) =>
      call<unknown>(`/factors/${factorId}`, { method: 'DELETE', token, clientIp }),
    /** E-mails the user a code that proves it is them (Auth's reauthentication nonce). */
    reauthenticate: (token: string, clientIp?: string) => call<unknown>('/reauthenticate', { token, clientIp }),
    deleteUser: (id: string) => call<unknown>(`/admin/users/${id}`, { method: 'DELETE', admin: true, body: {} }),
    authorizeUrl: (provider: string, redirectTo: string) =>
      `${base}/authorize?${new URLSearchParams({ provider, redirect_to: redirectTo })}`,
  };
}

export type AuthApi = ReturnType<typeof createAuthApi>;
