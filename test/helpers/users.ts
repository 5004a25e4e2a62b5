// Users made through the real Supabase Auth: sign up, read the e-mailed code, confirm, get a session.
import { AuthClient, type Session } from '@supabase/auth-js';
import { latestCode } from './mailpit.ts';
import { stack } from './stack.ts';

/** Supabase's own Auth client (the `auth` part of supabase-js), pointed at the gateway like a browser would be. */
export function authClient() {
  return new AuthClient({
    url: `${stack.apiUrl}/auth/v1`,
    headers: { apikey: stack.anonKey },
    persistSession: false,
    autoRefreshToken: false,
    detectSessionInUrl: false,
  });
}

let counter = 0;

/** An address no other test uses. */
export function uniqueEmail(label = 'user'): string {
  counter += 1;
  return `${label}.${Date.now().toString(36)}.${counter}@example.test`;
}

export const defaultPassword = 'correct horse battery';

export async function signUpConfirmed(email = uniqueEmail()): Promise<Session> {
  const auth = authClient();
  const signUp = await auth.signUp({ email, password: defaultPassword });
  if (signUp.error) throw signUp.error;
  const token = await latestCode(email);
  const verified = await auth.verifyOtp({ email, token, type: 'signup' });
  if (verified.error || !verified.data.session) throw verified.error ?? new Error('no session after confirmation');
  return verified.data.session;
}
