// The database as PostgREST uses it: a connection as `authenticator`, and per transaction the caller's
// role and JWT claims set with set_config(..., true). `asRoot` is the cluster superuser, for arranging data.
import postgres from 'postgres';
import { stack } from './stack.ts';

function asRole(url: string, role: string): string {
  const parsed = new URL(url);
  parsed.username = role;
  return parsed.toString();
}

export const asRoot = postgres(stack.dbUrl, { max: 4, onnotice: () => {} });
const authenticator = postgres(asRole(stack.dbUrl, 'authenticator'), { max: 8, prepare: false, onnotice: () => {} });

export type Tx = postgres.TransactionSql;

export interface Actor {
  name: string;
  role: 'anon' | 'authenticated';
  claims: Record<string, unknown>;
}

export const anon: Actor = { name: 'anon', role: 'anon', claims: {} };

/** Runs `work` in one transaction exactly as PostgREST would for this actor. */
export function as<T>(actor: Actor, work: (tx: Tx) => Promise<T>): Promise<T> {
  const claims = JSON.stringify({ ...actor.claims, role: actor.role });
  return authenticator.begin(async (tx) => {
    await tx`select set_config('role', ${actor.role}, true), set_config('request.jwt.claims', ${claims}, true)`;
    return work(tx);
  }) as Promise<T>;
}

/**
 * The SQLSTATE and hint of the error `work` raises (fails the test if it raises none), as PostgREST reads them:
 * an error raised whole (SQLSTATE PGRST, a limit's 429) holds them in its MESSAGE as JSON.
 */
export async function errorOf(work: Promise<unknown>): Promise<{ code: string; hint?: string; message: string }> {
  try {
    await work;
  } catch (error) {
    const raised = error as { code: string; hint?: string; message: string };
    const { code, hint, message } = raised.code === 'PGRST' ? JSON.parse(raised.message) : raised;
    return { code, hint, message };
  }
  throw new Error('expected an error, but the statement succeeded');
}

const parameterTypes = new Map<string, Map<string, string>>();

async function typesOf(fn: string): Promise<Map<string, string>> {
  let types = parameterTypes.get(fn);
  if (!types) {
    const [row] = await asRoot`
      select p.proargnames as names,
        array(select format_type(t.oid, null) from unnest(p.proargtypes) with ordinality t(oid, n) order by t.n) as types
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = 'public' and p.proname = ${fn}`;
    if (!row) throw new Error(`no function public.${fn}`);
    types = new Map(((row.names ?? []) as string[]).map((name, i) => [name, row.types[i] as string]));
    parameterTypes.set(fn, types);
  }
  return types;
}

/** How PostgREST turns one JSON argument into the parameter's type. */
function fromJson(name: string, type: string): string {
  if (type === 'jsonb' || type === 'json') return `(args -> '${name}')::${type}`;
  if (type.endsWith('[]')) {
    return `(select array_agg(e)::${type} from jsonb_array_elements_text(args -> '${name}') e)`;
  }
  return `(args ->> '${name}')::${type}`;
}

/**
 * Calls an API function as `actor`, the way supabase-js `rpc()` does through PostgREST: the arguments
 * travel as one JSON object and Postgres converts each to its parameter's type. One transaction.
 */
// deno-lint-ignore no-explicit-any
export async function rpc(actor: Actor, fn: string, args: Record<string, unknown> = {}): Promise<any> {
  if (!/^[a-z_]+$/.test(fn)) throw new Error(`not a function name: ${fn}`);
  const types = await typesOf(fn);
  const list = Object.keys(args).map((name) => {
    const type = types.get(name);
    if (!type) throw new Error(`public.${fn} has no parameter ${name}`);
    return `${name} => ${fromJson(name, type)}`;
  });
  const [row] = await as(
    actor,
    (tx) =>
      tx.unsafe(`select public.${fn}(${list.join(', ')}) as result from (select $1::jsonb as args) a`, [args as never]),
  );
  return row.result;
}

/** A transaction of `actor` that runs `statement`, then stays open (holding its locks) until `release`. */
export function heldOpen(actor: Actor, statement: (tx: Tx) => Promise<unknown>) {
  let release!: () => void;
  let started!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const ran = new Promise<void>((resolve) => (started = resolve));
  const done = as(actor, async (tx) => {
    await statement(tx);
    started();
    await released;
  });
  return { ran, release, done };
}

/** Resolves once `count` sessions wait on a lock: the moment a race test has its race set up. */
export async function lockWaits(count: number): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    const [row] = await asRoot`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock'`;
    if (row.n >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`expected ${count} session(s) waiting on a lock within 5 s`);
}

/**
 * Back-dates rows as a bulk load does (`session_replication_role = replica`: no trigger runs), since an edit of
 * `created_at` keeps the recorded date (private.keep_created_at). `assignment` is the SET list, e.g.
 * `created_at = now() - interval '2 days'`; `where` the rows'.
 */
export async function backdate(
  table: string,
  assignment: string,
  where: string,
  ...values: unknown[]
): Promise<number> {
  const rows = await asRoot.begin(async (tx) => {
    await tx`set local session_replication_role = replica`;
    return await tx.unsafe(`update ${table} set ${assignment} where ${where}`, values as never[]);
  });
  return rows.count;
}
