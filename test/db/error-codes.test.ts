// supabase/ERRORS.md lists every stable error code the API answers, under its HTTP status, and nothing else.
// The codes are collected where they are raised: the SQL functions of the live database (private.fail and
// HINT, in the project's schemas), and the facade's sources (new ApiError, the translation tables of lib/errors.ts and lib/auth-errors.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentedCodes } from '../../supabase/tools/error-codes.ts';
import { errorCodeFiles } from '../../supabase/tools/generated.ts';
import { asRoot } from '../helpers/db.ts';
import { authIsRunning } from '../helpers/stack.ts';

interface Raised {
  code: string;
  /** The HTTP status, when the source names it. */
  status?: number;
  where: string;
}

/** The first `count` arguments of each call that `callee` (ending in an opening parenthesis) finds in `source`. */
function callArguments(source: string, callee: RegExp, count: number): string[][] {
  const calls: string[][] = [];
  for (const match of source.matchAll(new RegExp(callee, 'g'))) {
    const args = [''];
    let depth = 0;
    let quote = '';
    for (let i = match.index + match[0].length; i < source.length && args.length <= count; i++) {
      const c = source[i];
      if (quote && c === '\\') {
        args[args.length - 1] += c + source[++i];
        continue;
      }
      if (quote) {
        if (c === quote) quote = '';
      } else if (`'"\``.includes(c)) quote = c;
      else if ('([{'.includes(c)) depth++;
      else if (')]}'.includes(c) && depth-- === 0) break;
      else if (c === ',' && depth === 0) {
        args.push('');
        continue;
      }
      args[args.length - 1] += c;
    }
    calls.push(args.slice(0, count).map((arg) => arg.trim()));
  }
  return calls;
}

const literals = (text: string) => [...text.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]);
const statusOf = (text: string) => (/^\d{3}$/.test(text) ? Number(text) : undefined);

/** public and the schemas supabase/schemas/ creates (private, moderation…). */
const projectSchemas = [
  'public',
  ...readdirSync('supabase/schemas').flatMap((file) =>
    [...readFileSync(`supabase/schemas/${file}`, 'utf8').matchAll(/create schema (?:if not exists )?(\w+)/g)].map((m) =>
      m[1]
    )
  ),
];

async function projectFunctions(): Promise<{ name: string; source: string }[]> {
  const functions = await asRoot`
    select n.nspname || '.' || p.proname as name, p.prosrc as source
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = any(${projectSchemas})`;
  return functions.map(({ name, source }) => ({ name, source }));
}

async function raisedBySql(): Promise<Raised[]> {
  const functions = await projectFunctions();
  // A write limit refuses with too_many_<family>, one per row of its table (supabase/schemas/24_write_limits.sql).
  const limits = await asRoot`select 'too_many_' || family as code from private.write_limits`;
  return [
    ...limits.map(({ code }) => ({ code, status: 429, where: 'private.write_limits' })),
    ...functions.flatMap(({ name, source }) => [
      // private.fail raises; private.committed_refusal and private.hook_refusal answer a refusal without rolling back.
      ...callArguments(source, /private\.(?:fail|committed_refusal|hook_refusal)\(/, 2).flatMap(([status, code]) =>
        literals(code).map((c) => ({ code: c, status: statusOf(status), where: name }))
      ),
      ...[...source.matchAll(/hint\s*=\s*'([a-z_]+)'/g)].map((m) => ({ code: m[1], where: name })),
    ]),
  ];
}

function sources(dir: string): { file: string; text: string }[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('database.types.ts'))
    .map((file) => ({ file: join(dir, file), text: readFileSync(join(dir, file), 'utf8') }));
}

const facade = sources('functions/api');

function raisedByFacade(): Raised[] {
  return facade.flatMap(({ file, text }) => [
    ...callArguments(text, /new ApiError\(/, 2).flatMap(([status, code]) =>
      literals(code).map((c) => ({ code: c, status: statusOf(status), where: file }))
    ),
    // Translation tables: [status, 'code', …] (Auth's codes, SQLSTATEs) and status: 'code' (HTTP errors).
    ...[...text.matchAll(/\[\s*(\d{3}),\s*'([a-z_]+)'/g), ...text.matchAll(/^\s*(\d{3}): '([a-z_]+)',$/gm)]
      .map((m) => ({ code: m[2], status: Number(m[1]), where: file })),
  ]);
}

const undocumented = (raised: Raised[], codes: Map<string, Set<number>>) => [
  ...new Set(
    raised
      .filter(({ code, status }) => !codes.has(code) || (status !== undefined && !codes.get(code)!.has(status)))
      .map(({ code, status, where }) => `${status ?? '?'} ${code} (${where})`),
  ),
];

describe.skipIf(!authIsRunning)('supabase/ERRORS.md', () => {
  const errorsMd = readFileSync('supabase/ERRORS.md', 'utf8');
  const { codes, sqlStates } = documentedCodes(errorsMd);

  it('lists every code the SQL functions raise, under its HTTP status', async () => {
    const raised = await raisedBySql();
    expect(raised.length).toBeGreaterThan(30);
    expect(undocumented(raised, codes)).toEqual([]);
  });

  it('lists every code the facade answers, under its HTTP status', () => {
    const raised = raisedByFacade();
    expect(raised.length).toBeGreaterThan(30);
    expect(undocumented(raised, codes)).toEqual([]);
  });

  it('lists only codes something raises', async () => {
    const raised = new Set([...await raisedBySql(), ...raisedByFacade()].map(({ code }) => code));
    expect(codes.size).toBeGreaterThan(50);
    expect([...codes.keys()].filter((code) => !raised.has(code))).toEqual([]);
  });

  it("maps the SQLSTATEs Postgres raises as lib/errors.ts does, and these cover the SQL functions' own", async () => {
    const source = facade.find(({ file }) => file.endsWith('lib/errors.ts'))!.text;
    // An entry with a message of its own is split over lines, as the formatter writes it.
    const entry = /'([0-9A-Z]{5})': \[\s*(\d{3}),\s*'([a-z_]+)'(?:,\s*(?:'[^']*'|"[^"]*"))?,?\s*\]/g;
    const mapped = [...source.matchAll(entry)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
    expect(sqlStates).toEqual(mapped.sort());
    // PTxyz states carry their HTTP status (lib/errors.ts reads the digits), so only the others need a row.
    const ownStates = (await projectFunctions()).flatMap(({ source }) =>
      [...source.matchAll(/errcode\s*=\s*'([0-9A-Z]{5})'/g)].map((m) => m[1])
    )
      .filter((state) => !state.startsWith('PT'));
    expect(ownStates.length).toBeGreaterThan(0);
    expect(ownStates.filter((state) => !mapped.some((entry) => entry.startsWith(`${state} `)))).toEqual([]);
  });

  it.each(errorCodeFiles())(
    '$path is what supabase/ERRORS.md and the sources say now (else run `npm run error-codes`)',
    ({ path, text }) => {
      expect(readFileSync(path, 'utf8')).toBe(text);
    },
  );
});
