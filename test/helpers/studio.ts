// What Supabase Studio sends, read from its source (supabase/supabase): the Authentication page's buttons call
// Supabase Auth's admin API with the service_role key, through Studio's own API routes
// (apps/studio/pages/api/platform/auth/[ref]/*.ts, headers from apps/studio/lib/api/apiHelpers.ts
// constructHeaders: Authorization and apiKey both the service key); the table editor runs pg-meta's SQL as
// `postgres` (test/helpers/db.ts asRoot).
import { stack } from './stack.ts';

export interface StudioAnswer {
  status: number;
  // deno-lint-ignore no-explicit-any
  body: any;
}

/** A request to Auth's `/auth/v1<path>` as Studio's API routes send it. */
export async function studioAuth(method: string, path: string, body?: unknown): Promise<StudioAnswer> {
  const response = await fetch(`${stack.apiUrl}/auth/v1${path}`, {
    method,
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json',
      Authorization: `Bearer ${stack.serviceRoleKey}`,
      apiKey: stack.serviceRoleKey,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * Where a link from an e-mail leads, as a browser opening it sees the first answer: its status and, for a
 * redirect, the fragment Auth puts the session (or the error) in.
 */
export async function openLink(link: string): Promise<{ status: number; fragment: URLSearchParams }> {
  const response = await fetch(link, { redirect: 'manual' });
  await response.body?.cancel();
  const location = response.headers.get('location') ?? '';
  return { status: response.status, fragment: new URLSearchParams(location.split('#')[1] ?? '') };
}
