// docs/RPC.md, the reference of the functions a supabase-js client may call with rpc(): read from the database
// itself (each function's parameters, their defaults, who may call it, its comment), each beside the facade
// route that answers with the same JSON, whose 200 answer in /openapi.json is the result's shape. `npm run
// docs:rpc` writes it from the dev stack; test/db/rpc-reference.test.ts fails when it no longer matches the
// database. Pure functions: the callers read the database and the route files.
import type postgres from 'postgres';

export interface ApiFunction {
  name: string;
  /** `p_name type` or `p_name type DEFAULT …`, as pg_get_function_arguments writes them. */
  args: string[];
  anon: boolean;
  comment: string;
}

/** The functions of the public schema that anon or authenticated may execute, by name. */
export async function apiFunctions(sql: postgres.Sql): Promise<ApiFunction[]> {
  const rows = await sql`
    select p.proname as name, pg_get_function_arguments(p.oid) as args,
      has_function_privilege('anon', p.oid, 'execute') as anon, coalesce(obj_description(p.oid, 'pg_proc'), '') as comment
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'public' and p.prokind = 'f'
      and (has_function_privilege('anon', p.oid, 'execute') or has_function_privilege('authenticated', p.oid, 'execute'))
    order by p.proname`;
  return rows.map((row) => ({
    name: row.name,
    args: row.args ? String(row.args).split(/, (?=p_)/) : [],
    anon: row.anon,
    comment: row.comment,
  }));
}

/**
 * Which route answers each function's JSON: in the route files, each `.openapi(createRoute(…), handler)` whose
 * handler calls `rpc(deps, caller, '<fn>'` or runs `rpcStatement('<fn>'`, itself or in a function of its module
 * that it calls (one level: a deeper helper's result is rarely the route's answer).
 */
export function routesByFunction(routeSources: string[]): Map<string, string> {
  const routes = new Map<string, string>();
  for (const source of routeSources) {
    // The module's own functions, from `function name(` to the closing brace at the start of a line.
    const helpers = new Map(
      [...source.matchAll(/^(?:async )?function (\w+)\([\s\S]*?^\}$/gm)].map((m) => [m[1], m[0]]),
    );
    // zod's own `.openapi({…})` calls inside a route are not where one begins.
    for (const chunk of source.split(/\.openapi\(\s*(?=createRoute\()/).slice(1)) {
      const declared = /^createRoute\(\{[\s\S]*?method: '(\w+)',[\s\S]*?path: '([^']+)'/.exec(chunk);
      const route = declared && `${declared[1].toUpperCase()} ${declared[2]}`;
      const called = [...chunk.matchAll(/\b(\w+)\(/g)].map((m) => helpers.get(m[1]) ?? '');
      const text = [chunk, ...new Set(called)].join('\n');
      for (const call of text.matchAll(/\brpc\(\s*[\w.]+,\s*[\w.]+,\s*'([a-z_]+)'|\brpcStatement\(\s*'([a-z_]+)'/g)) {
        const fn = call[1] ?? call[2];
        if (route && !routes.has(fn)) routes.set(fn, route);
      }
    }
  }
  return routes;
}

function argument(text: string): string {
  const m = /^(\w+) ([\w ]+?(?:\[\])?)(?: DEFAULT (.+))?$/.exec(text);
  if (!m) return text;
  if (m[3] === undefined) return `${m[1]}: ${m[2]}`;
  // Defaults as Postgres prints them carry their casts: NULL::text, 'UTC'::text.
  return `${m[1]}?: ${m[2]} = ${m[3].replace(/::[\w ]+$/, '').replace(/^NULL$/, 'null')}`;
}

export function renderRpcReference(functions: ApiFunction[], routes: Map<string, string>): string {
  const lines = [
    '# rpc(): the functions supabase-js may call',
    '',
    '<!-- Written by `npm run docs:rpc` from the database (supabase/tools/rpc-reference.ts); test/db/rpc-reference.test.ts',
    'fails when it is out of date. Do not edit by hand. -->',
    '',
    'Every function below is the one the REST facade calls for the route named beside it, so its result is that',
    "route's 200 answer, whose shape the OpenAPI document (`/openapi.json`, the typed client in",
    "`client/`) gives field by field. Arguments go by name: `supabase.rpc('feed', { p_limit: 10 })`.",
    'Errors come as PostgREST errors whose `hint` is the stable code (supabase/ERRORS.md). "anyone" means the anon',
    'key alone will do; "signed in" needs a user\'s session.',
    '',
    '`me` answers what `GET /auth/user` calls `profile`, and `update_profile` what `PUT /user` does; "—" marks the',
    'functions no single route wraps whole.',
    '',
    '| function | arguments | who | answers like | what |',
    '|---|---|---|---|---|',
  ];
  for (const fn of functions) {
    const args = fn.args.map(argument).map((a) => `\`${a}\``).join(', ') || '—';
    const route = routes.get(fn.name);
    lines.push(
      `| \`${fn.name}\` | ${args} | ${fn.anon ? 'anyone' : 'signed in'} | ${route ? `\`${route}\`` : '—'} | ` +
        `${fn.comment.replaceAll('|', '\\|').replaceAll('\n', ' ')} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
