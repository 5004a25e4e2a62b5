// What Supabase Studio sends, read from its source (supabase/supabase): the Authentication page's buttons call
// Supabase Auth's admin API with the service_role key, through Studio's own API routes
// (apps/studio/pages/api/platform/auth/[ref]/*.ts, headers from apps/studio/lib/api/apiHelpers.ts
// constructHeaders: Authorization and apiKey both the service key); the table editor runs pg-meta's SQL as
// `postgres` (test/helpers/db.ts asRoot).
import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
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

function insertRows(name: string, rows: Record<string, unknown>[]) {
  return asRoot.unsafe(
    `insert into ${table(name)} (${columns(rows[0])}) select ${columns(rows[0])} ` +
      `from jsonb_populate_recordset(null::${table(name)}, ${literal(JSON.stringify(rows))}) returning *;`,
  );
}

export const tableEditor = {
  /** "Insert row": the new row's values through jsonb_populate_recordset, returning it. */
  insert: (name: string, row: Record<string, unknown>) => insertRows(name, [row]),
  /** The CSV import: a batch of rows in one statement, the same insert. */
  insertMany: (name: string, rows: Record<string, unknown>[]) => insertRows(name, rows),
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

/**
 * Database > Triggers switching `trigger` of `table` (schema-qualified) to `mode`: pg-meta's triggers update
 * (supabase/postgres-meta, src/lib/PostgresMetaTriggers.ts) sends `BEGIN; ALTER TABLE … <mode> TRIGGER …; COMMIT;` as
 * `postgres`, here on a connection of its own, since a refused statement leaves that transaction aborted.
 */
export async function triggerSwitch(
  table: string,
  trigger: string,
  mode: 'DISABLED' | 'REPLICA' | 'ALWAYS' | 'ORIGIN',
) {
  const switched = { DISABLED: 'DISABLE', REPLICA: 'ENABLE REPLICA', ALWAYS: 'ENABLE ALWAYS', ORIGIN: 'ENABLE' }[mode];
  const pgMeta = postgres(stack.dbUrl, { max: 1, onnotice: () => {} });
  try {
    return await pgMeta.unsafe(
      `BEGIN; ALTER TABLE ${table.split('.').map(ident).join('.')} ${switched} TRIGGER ${ident(trigger)}; COMMIT;`,
    );
  } finally {
    await pgMeta.end();
  }
}

/** The path Studio's SQL editor marks an impersonated query with (packages/pg-meta/src/sql/studio/role-impersonation.ts). */
export const impersonationPath = '/impersonation-example-request-path';

/** The project ref Studio puts in the claims it makes up; nothing in the database reads it. */
const projectRef = 'default';

/** Who the SQL editor's role selector impersonates: a user picked from the list, or `anon`. */
export type Impersonated = Account | 'anon';

/** The assurance level Studio's role selector offers for a user: aal1 unless the operator picks aal2. */
export type Aal = 'aal1' | 'aal2';

/**
 * The claims Studio makes up (apps/studio/lib/role-impersonation.ts, getPostgrestClaims): for a user, their row of
 * auth.users as Studio's user list shows it, the chosen aal, and a fresh session_id no session has; for anon, the
 * key's claims.
 */
async function studioClaims(who: Impersonated, aal: Aal): Promise<Record<string, unknown>> {
  const now = Math.floor(Date.now() / 1000);
  if (who === 'anon') return { iss: 'supabase', ref: projectRef, role: 'anon', iat: now, exp: now + 3600 };
  const [user] = await asRoot`
    select raw_app_meta_data, raw_user_meta_data, email, phone, role, is_anonymous from auth.users where id = ${who.id}`;
  return {
    aal,
    amr: [{ method: 'password', timestamp: now }],
    app_metadata: user.raw_app_meta_data,
    aud: 'authenticated',
    email: user.email,
    exp: now + 3600,
    iat: now,
    iss: `https://${projectRef}.supabase.co/auth/v1`,
    phone: user.phone,
    role: user.role ?? 'authenticated',
    session_id: randomUUID(),
    sub: who.id,
    user_metadata: user.raw_user_meta_data,
    is_anonymous: user.is_anonymous,
  };
}

/**
 * What Studio puts before the query typed in the SQL editor (pg-meta's getImpersonationSQL, with PostgREST's
 * pre-request hook called as supabase/supabase pull request 50541 does): the role, the claims and the request
 * settings with the marker path; then the hook PostgREST would call, read from the catalog where PostgREST reads
 * it (`pgrst.db_pre_request` of `authenticator`, or of the database), called as the impersonated role, a name that
 * resolves to no function of no arguments skipped; then the marker row pg-meta falls back to.
 */
function impersonationPrefix(role: string, claims: Record<string, unknown>): string {
  return `select set_config('role', ${literal(role)}, true),
set_config('request.jwt.claims', ${literal(JSON.stringify(claims))}, true),
set_config('request.method', 'POST', true),
set_config('request.path', '${impersonationPath}', true),
set_config('request.headers', '{"accept": "*/*"}', true);
do $$
declare
  v_setting text;
  v_hook regprocedure;
begin
  select substr(c.setting, length('pgrst.db_pre_request=') + 1) into v_setting
  from pg_catalog.pg_db_role_setting s
  cross join lateral unnest(s.setconfig) as c(setting)
  where c.setting like 'pgrst.db_pre_request=%'
    and (s.setrole = 0 or s.setrole = (select r.oid from pg_catalog.pg_roles r where r.rolname = 'authenticator'))
    and s.setdatabase in (0, (select d.oid from pg_catalog.pg_database d where d.datname = current_database()))
  order by s.setrole = 0, s.setdatabase = 0
  limit 1;
  if v_setting is null then
    return;
  end if;
  begin
    v_hook := to_regprocedure(v_setting || '()');
  exception when others then
    return;
  end;
  if v_hook is not null then
    execute 'select ' || v_hook::text;
  end if;
end
$$;
select 1 as "ROLE_IMPERSONATION_NO_RESULTS";`;
}

/**
 * The SQL editor's "impersonate" (a user, or anon): Studio's prefix above, then `work`, in one transaction as
 * `postgres` (pg-meta runs the editor's text as one multi-statement query, one implicit transaction).
 */
export async function impersonating<T>(
  who: Impersonated,
  work: (tx: Tx) => Promise<T>,
  aal: Aal = 'aal1',
): Promise<T> {
  const claims = await studioClaims(who, aal);
  const role = who === 'anon' ? 'anon' : String(claims.role);
  return asRoot.begin(async (tx) => {
    await tx.unsafe(impersonationPrefix(role, claims)).simple();
    return work(tx);
  }) as Promise<T>;
}
