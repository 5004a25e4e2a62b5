// What Supabase Studio sends, read from its source (supabase/supabase): the Authentication page's buttons call
// Supabase Auth's admin API with the service_role key, through Studio's own API routes
// (apps/studio/pages/api/platform/auth/[ref]/*.ts, headers from apps/studio/lib/api/apiHelpers.ts
// constructHeaders: Authorization and apiKey both the service key); the table editor runs pg-meta's SQL as
// `postgres` (test/helpers/db.ts asRoot).
import { randomUUID } from 'node:crypto';
import type { Account } from './accounts.ts';
import { asRoot, type Tx } from './db.ts';
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

// The table editor's statements, in the shapes pg-meta's query builder writes them (supabase/supabase,
// packages/pg-meta/src/query/Query.utils.ts: insertQuery, updateQuery, deleteQuery, truncateQuery; called from
// apps/studio/data/table-rows/table-row-create-mutation.ts, table-row-update-mutation.ts,
// table-row-delete-mutation.tsx, table-row-truncate-mutation.ts), run as `postgres` like Studio's SQL runs.

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
const literal = (value: unknown) => `'${String(value).replaceAll("'", "''")}'`;
const columns = (row: Record<string, unknown>) => Object.keys(row).map(ident).join(',');

/** The editor's table reference: always schema-qualified. */
function table(name: string): string {
  const [schema, relation] = name.includes('.') ? name.split('.') : ['public', name];
  return `${ident(schema)}.${ident(relation)}`;
}

/** Where the rows' key columns are among the given values, one `in` per key column as the editor filters. */
function where(keys: Record<string, unknown[]>): string {
  return Object.entries(keys).map(([column, values]) => `${ident(column)} in (${values.map(literal).join(',')})`).join(
    ' and ',
  );
}

export const tableEditor = {
  /** "Insert row": the new row's values through jsonb_populate_recordset, returning it. */
  insert: (name: string, row: Record<string, unknown>) =>
    asRoot.unsafe(
      `insert into ${table(name)} (${columns(row)}) select ${columns(row)} ` +
        `from jsonb_populate_recordset(null::${table(name)}, ${literal(JSON.stringify([row]))}) returning *;`,
    ),
  /** A cell or row edited: the changed columns through json_populate_record, the row matched by its key. */
  update: (name: string, changes: Record<string, unknown>, key: Record<string, unknown>) =>
    asRoot.unsafe(
      `update ${table(name)} set (${columns(changes)}) = (select ${columns(changes)} ` +
        `from json_populate_record(null::${table(name)}, ${literal(JSON.stringify(changes))})) ` +
        `where ${Object.entries(key).map(([column, value]) => `${ident(column)} = ${literal(value)}`).join(' and ')};`,
    ),
  /** "Delete rows": the selected rows by their primary key columns. */
  delete: (name: string, keys: Record<string, unknown[]>) =>
    asRoot.unsafe(`delete from ${table(name)} where ${where(keys)};`),
  /** "Truncate table". */
  truncate: (name: string) => asRoot.unsafe(`truncate ${table(name)};`),
};

/** The path Studio's SQL editor marks an impersonated query with (apps/studio/lib/role-impersonation.ts). */
export const impersonationPath = '/impersonation-example-request-path';

/**
 * The SQL editor's "impersonate a user" (role-impersonation.ts, wrapWithRoleImpersonation): the role, the user's
 * claims with a made-up session_id, the request settings with the marker path, then `work`, in one transaction
 * as `postgres`.
 */
export function impersonating<T>(user: Account, work: (tx: Tx) => Promise<T>): Promise<T> {
  const now = Math.floor(Date.now() / 1000);
  const claims = JSON.stringify({
    aal: 'aal1',
    amr: [{ method: 'password', timestamp: now }],
    aud: 'authenticated',
    email: user.email,
    exp: now + 3600,
    iat: now,
    role: 'authenticated',
    session_id: randomUUID(),
    sub: user.id,
  });
  return asRoot.begin(async (tx) => {
    await tx`select set_config('role', 'authenticated', true), set_config('request.jwt.claims', ${claims}, true),
      set_config('request.method', 'POST', true), set_config('request.path', ${impersonationPath}, true),
      set_config('request.headers', '{"accept": "*/*"}', true)`;
    return work(tx);
  }) as Promise<T>;
}
