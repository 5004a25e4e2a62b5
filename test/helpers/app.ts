// The facade in-process under Node, for cases the running stack cannot show (a database that is down).
import { createApp } from '../../functions/api/app.ts';
import { parseEnv } from '../../functions/api/env.ts';
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
