// supabase-js itself, as an app would use it: pointed at the gateway's origin with the anon key, so every
// call goes through /rest/v1 (PostgREST) and /auth/v1 (Supabase Auth) of the test stack.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import type { Database } from '../../functions/api/database.types.ts';
import { stack } from './stack.ts';
import { defaultPassword } from './users.ts';

export type Sdk = SupabaseClient<Database>;

/** A client that has signed in with nobody: it acts as `anon`. */
export function anonSdk(): Sdk {
  return createClient<Database>(stack.apiUrl, stack.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  });
}

/** A client signed in through Supabase Auth with the account's e-mail and password (tests' accounts share one). */
export async function signedInSdk(account: { email: string }, password = defaultPassword): Promise<Sdk> {
  const client = anonSdk();
  const { error } = await client.auth.signInWithPassword({ email: account.email, password });
  if (error) throw error;
  return client;
}
