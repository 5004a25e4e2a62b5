// The typed client for TypeScript consumers: openapi-fetch over the types `npm run client` generates from the
// OpenAPI document (schema.d.ts), so every path, parameter, body and answer is checked when compiling.
import createClient, { type ClientOptions } from 'openapi-fetch';
import type { paths } from './schema.d.ts';

export type { components, operations, paths } from './schema.d.ts';
export type { Database, Json } from './database.ts';

/**
 * A client of the facade. `baseUrl` is the document's server, the functions URL without `/api`:
 * `https://<ref>.supabase.co/functions/v1`, or `http://127.0.0.1:54321/functions/v1` with `npm start`.
 * Paths are the document's: `api.POST('/api/auth/login', { body })`.
 */
export function createApiClient(baseUrl: string, options: Omit<ClientOptions, 'baseUrl'> = {}) {
  return createClient<paths>({ ...options, baseUrl });
}

export type ApiClient = ReturnType<typeof createApiClient>;
