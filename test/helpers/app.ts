// The facade in-process under Node, for cases the running stack cannot show (a database that is down).
import { createApp } from '../../functions/api/app.ts';
import { parseEnv } from '../../functions/api/env.ts';
import type { ApiResponse } from './http.ts';
import { stack } from './stack.ts';

/** Nothing listens on port 9 (discard) on the test machines. */
export const unreachable = 'http://127.0.0.1:9';

export function appWith(overrides: Record<string, string>) {
  return createApp(parseEnv({
    SUPABASE_URL: stack.apiUrl,
    SUPABASE_DB_URL: stack.dbUrl,
    SUPABASE_ANON_KEY: stack.anonKey,
    SUPABASE_SERVICE_ROLE_KEY: stack.serviceRoleKey,
    ...overrides,
  }));
}

/** The primary as the facade reaches it: through the pooler (when the stack runs one), as `authenticator`. */
export function facadeDatabaseUrl(): string {
  const url = new URL(stack.poolerUrl || stack.dbUrl);
  url.username = 'authenticator';
  return url.toString();
}

/**
 * The facade as the stack runs it but with every read on the primary: for faults made on the primary (a lock,
 * sessions ended), which a read on the replica would not meet.
 */
export function primaryOnlyApp() {
  return appWith({ DB_POOLER_URL: facadeDatabaseUrl() });
}

/** A GET to an in-process facade, answered as `api()` answers. */
export async function getFrom(app: ReturnType<typeof appWith>, path: string, token?: string): Promise<ApiResponse> {
  const response = await app.request(`/api${path}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}
