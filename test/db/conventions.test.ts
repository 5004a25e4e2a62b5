// supabase/CONVENTIONS.md's rules that a machine can check, read from the migrated database's catalog or from the
// schema files: a rule written there and broken here fails, so a reviewer may trust it. Supabase's own advisors
// (splinter's lints) run in lints.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { asRoot } from '../helpers/db.ts';
import { authIsRunning } from '../helpers/stack.ts';

/** The project's schemas: its functions follow the conventions (auth, storage and extensions are Supabase's). */
const appSchemas = ['public', 'private', 'moderation'];

/**
 * The `security definer` functions allowed in `public`, each with why. None: a definer body lives in `private`,
 * where a reviewer looks for it, behind an invoker API function (public.my_sessions over private.own_sessions).
 */
const definerInPublic: Record<string, string> = {};

const schemaDir = 'supabase/schemas';
const schemaFiles = readdirSync(schemaDir).filter((name) => name.endsWith('.sql')).sort();
const source = (file: string) => readFileSync(`${schemaDir}/${file}`, 'utf8');

/** Each `create function` of the schema files: its name, its header (up to the body) and the statement after it. */
function functionsInFiles() {
  return schemaFiles.flatMap((file) => {
    const text = source(file);
    return [...text.matchAll(/^create (?:or replace )?function ([\w.]+)\(/gm)].map((match) => {
      // The body is a dollar-quoted string (`as $$ … $$;`) or a SQL-standard one (`begin atomic … end;`).
      const body = /^(?:as (\$\w*\$)|begin atomic$)/m.exec(text.slice(match.index));
      if (!body) throw new Error(`${file}: no body after ${match[1]}`);
      const bodyAt = match.index + body.index;
      const closing = body[1] ? text.indexOf(body[1], bodyAt + body[0].length) : text.indexOf('\nend;', bodyAt);
      const end = text.indexOf(';', closing) + 1;
      return {
        file,
        name: match[1],
        header: text.slice(match.index, bodyAt),
        next: text.slice(end).trimStart().split('\n')[0],
      };
    });
  });
}

describe('the schema files', () => {
  it("are exactly the files config.toml's schema_paths lists, in the folder's order", () => {
    // The CLI's db diff and the stack's schema check (supabase/stack/schema.ts, which takes each entry as a path,
    // not a glob) read schema_paths alone: a file missing there would vanish silently.
    const config = parse(readFileSync('supabase/config.toml', 'utf8')) as {
      db: { migrations: { schema_paths: string[] } };
    };
    expect(config.db.migrations.schema_paths).toEqual(schemaFiles.map((file) => `./schemas/${file}`));
  });

  it("state every function's volatility, but a trigger function's (always volatile)", () => {
    const unstated = functionsInFiles()
      .filter((f) => !/\nreturns trigger\n/.test(f.header) && !/\n(immutable|stable|volatile)\n/.test(f.header))
      .map((f) => `${f.file}: ${f.name}`);
    expect(unstated).toEqual([]);
  });

  it("follow each function at once by its revoke from public (moderation's are revoked all together)", () => {
    const loose = functionsInFiles()
      .filter((f) => !f.name.startsWith('moderation.') && !f.next.startsWith(`revoke execute on function ${f.name}(`))
      .map((f) => `${f.file}: ${f.name}`);
    expect(loose).toEqual([]);
  });

  it("put a table's policies and grants in the table's own file (09_policies.sql holds those of the tables before it)", () => {
    const home = new Map(
      schemaFiles.flatMap((file) => [...source(file).matchAll(/^create table ([\w.]+)/gm)].map((m) => [m[1], file])),
    );
    const strays = schemaFiles.flatMap((file) =>
      [...source(file).matchAll(/^(?:create policy "[^"]+"\s+on|grant [\w, ()]+ on(?: table)?) ([\w.]+)/gm)]
        .filter((m) => home.has(m[1]))
        .filter((m) => home.get(m[1]) !== file && !(file === '09_policies.sql' && home.get(m[1])! < file))
        .map((m) => `${file}: ${m[0]} (table in ${home.get(m[1])})`)
    );
    expect(strays).toEqual([]);
  });
});

describe.skipIf(!authIsRunning)('the catalog keeps the conventions', () => {
  /** The project's own functions (not an extension's), then a query of them. */
  const own = (query: string) =>
    asRoot.unsafe(
      `
      with own as (
        select p.*, p.oid::regprocedure::text as signature, n.nspname as schema
        from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where n.nspname = any($1::text[])
          and not exists (select 1 from pg_depend d where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e'))
      ${query}`,
      [appSchemas],
    ).then((rows) => rows.map((row) => row.found as string));

  it('nothing security definer lives in public, but the allow-list', async () => {
    const found = await own(`select signature as found from own where schema = 'public' and prosecdef order by 1`);
    expect(found).toEqual(Object.keys(definerInPublic).sort());
  });

  it('every function runs with an empty search_path', async () => {
    expect(
      await own(
        `select signature as found from own where not coalesce(proconfig, '{}') @> array['search_path=""'] order by 1`,
      ),
    ).toEqual([]);
  });

  it('no function is executable by PUBLIC; a trigger function or one of moderation by no client role', async () => {
    const found = await own(`
      select signature || ' to PUBLIC' as found from own
      where proacl is null or exists (select 1 from aclexplode(proacl) a where a.grantee = 0 and a.privilege_type = 'EXECUTE')
      union all
      select signature || ' to ' || r.role from own, unnest(array['anon', 'authenticated', 'service_role']) r(role)
      where (prorettype = 'trigger'::regtype or schema = 'moderation') and has_function_privilege(r.role, oid, 'execute')
      order by 1`);
    expect(found).toEqual([]);
  });

  it('function parameters are named p_…', async () => {
    const found = await own(`
      select signature || ': ' || proargnames[i] as found from own, generate_subscripts(proargnames, 1) i
      where coalesce(proargmodes[i], 'i') in ('i', 'b', 'v') and proargnames[i] !~ '^p_' order by 1`);
    expect(found).toEqual([]);
  });

  it('every foreign key says what a delete does (none is the default no action)', async () => {
    const found = await own(`
      select c.conrelid::regclass || ' ' || c.conname as found
      from pg_constraint c join pg_class t on t.oid = c.conrelid join pg_namespace n on n.oid = t.relnamespace
      where c.contype = 'f' and n.nspname = any($1::text[]) and c.confdeltype = 'a' order by 1`);
    expect(found).toEqual([]);
  });

  it('every policy names its audience (no policy for PUBLIC)', async () => {
    const found = await own(`
      select c.oid::regclass || ': ' || p.polname as found
      from pg_policy p join pg_class c on c.oid = p.polrelid join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = any($1::text[]) and p.polroles @> array[0::oid] order by 1`);
    expect(found).toEqual([]);
  });

  it('a policy asks who the caller is once per statement: (select private.uid()), never per row', async () => {
    // The advisors' auth_rls_initplan checks auth.uid() and the like; this project's policies call its own.
    const found = await own(`
      select c.oid::regclass || ': ' || p.polname as found
      from pg_policy p join pg_class c on c.oid = p.polrelid join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = any($1::text[]) and regexp_replace(
          coalesce(pg_get_expr(p.polqual, p.polrelid), '') || ' ' || coalesce(pg_get_expr(p.polwithcheck, p.polrelid), ''),
          '\\( SELECT private\\.\\w+\\(\\) AS \\w+\\)', '', 'g') ~ 'private\\.(uid|is_admin)\\('
      order by 1`);
    expect(found).toEqual([]);
  });

  it('every table, column and function a client sees has a comment', async () => {
    const found = await own(`
      select c.oid::regclass::text as found from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'v', 'm', 'p') and obj_description(c.oid, 'pg_class') is null
        and (has_table_privilege('anon', c.oid, 'select') or has_table_privilege('authenticated', c.oid, 'select'))
      union all
      select c.oid::regclass || '.' || a.attname from pg_class c join pg_namespace n on n.oid = c.relnamespace
      join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      where n.nspname = 'public' and c.relkind in ('r', 'v', 'm', 'p') and col_description(c.oid, a.attnum) is null
        and (has_column_privilege('anon', c.oid, a.attnum, 'select') or has_column_privilege('authenticated', c.oid, a.attnum, 'select'))
      union all
      select signature from own where schema = 'public' and obj_description(oid, 'pg_proc') is null
        and (has_function_privilege('anon', oid, 'execute') or has_function_privilege('authenticated', oid, 'execute'))
      order by 1`);
    expect(found).toEqual([]);
  });
});
