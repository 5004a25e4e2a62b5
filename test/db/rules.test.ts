// The rules of the values users type are defined by the database (check constraints, enums, private.page_limit)
// and Supabase Auth (supabase/config.toml); the facade's zod schemas repeat them to answer 400 early. Each
// rule is read from the live database or the config and tried on the route's own zod schema: both sides
// must accept exactly the same values.
import { readFileSync } from 'node:fs';
import type { z } from '@hono/zod-openapi';
import { AuthClient } from '@supabase/auth-js';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { bodyFields, openApiParameters, route, routes } from '../helpers/routes.ts';
import { enumValues } from '../helpers/shapes.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';

/** Supabase Auth's admin API, to ask Auth itself which passwords it takes. */
const admin = new AuthClient({
  url: `${stack.apiUrl}/auth/v1`,
  headers: { apikey: stack.serviceRoleKey, Authorization: `Bearer ${stack.serviceRoleKey}` },
  persistSession: false,
  autoRefreshToken: false,
}).admin;

/** [1, 2, 3, 7] as '1..3, 7', for readable failures. */
function ranges(numbers: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < numbers.length; i++) {
    let j = i;
    while (numbers[j + 1] === numbers[j] + 1) j++;
    parts.push(i === j ? `${numbers[i]}` : `${numbers[i]}..${numbers[j]}`);
    i = j;
  }
  return parts.join(', ') || 'none';
}

/** Which of `values` the check constraints on table.column alone accept (a check passes unless it is false). */
async function sqlAccepts(table: string, column: string, values: unknown[]): Promise<boolean[]> {
  const rows = await asRoot`
    select format_type(a.atttypid, a.atttypmod) as type, pg_get_constraintdef(c.oid) as check
    from pg_attribute a
    join pg_constraint c on c.conrelid = a.attrelid and c.contype = 'c' and c.conkey = array[a.attnum]
    where a.attrelid = ${`public.${table}`}::regclass and a.attname = ${column}`;
  expect(rows.length, `public.${table}.${column} has a check constraint`).toBeGreaterThan(0);
  const type: string = rows[0].type;
  const cast = type.endsWith('[]')
    ? `array(select jsonb_array_elements_text(value))::${type}`
    : `(value #>> '{}')::${type}`;
  const checks = rows.map((row) => `coalesce(${String(row.check).replace(/^CHECK /, '')}, true)`).join(' and ');
  const results = await asRoot.unsafe(
    `select ${checks} as ok from (select ${cast} as "${column}", n from jsonb_array_elements($1::jsonb) with ordinality e(value, n)) t order by n`,
    [values as never],
  );
  return results.map((row) => row.ok as boolean);
}

const lengths = Array.from({ length: 2001 }, (_, n) => n);

/** The string lengths (0..2000, of 'a') that the column's check constraints accept. */
async function sqlLengths(table: string, column: string): Promise<number[]> {
  const accepted = await sqlAccepts(table, column, lengths.map((n) => 'a'.repeat(n)));
  const found = lengths.filter((_, i) => accepted[i]);
  expect(found.at(-1), `${table}.${column}: no maximum below ${lengths.length - 1}`).toBeLessThan(lengths.length - 1);
  return found;
}

const zodLengths = (field: z.ZodType) => lengths.filter((n) => field.safeParse('a'.repeat(n)).success);

/** The same field of each route's JSON body. */
const fieldsOf = (column: string, routeNames: string[]) =>
  routeNames.map((name) => [name, bodyFields(name)[column]] as const);

describe.skipIf(!authIsRunning)('the rules of typed values, database and zod alike', () => {
  const textColumns: [string, string, string[]][] = [
    ['profiles', 'username', ['POST /auth/register', 'PUT /user']],
    ['profiles', 'display_name', ['POST /auth/register', 'PUT /user']],
    ['profiles', 'bio', ['PUT /user']],
    ['profiles', 'avatar_url', ['PUT /user']],
    ['posts', 'body', ['POST /post/create', 'PUT /post/{postId}']],
    ['comments', 'body', ['POST /post/{postId}/comment', 'POST /post/comment/{commentId}/reply']],
    ['reports', 'reason', [
      'POST /{username}/report',
      'POST /post/{postId}/report',
      'POST /post/comment/{commentId}/report',
    ]],
    ['ban_history', 'reason', ['POST /admin/user/{username}/ban', 'POST /admin/post/{postId}/ban']],
  ];

  it.each(textColumns)(
    '%s.%s: the routes accept the lengths its check constraint accepts',
    async (table, column, routeNames) => {
      const sql = ranges(await sqlLengths(table, column));
      for (const [name, field] of fieldsOf(column, routeNames)) {
        expect({ route: name, lengths: ranges(zodLengths(field)) }).toEqual({ route: name, lengths: sql });
      }
    },
  );

  // Each candidate character between two allowed ones, so that only the character decides.
  const characterRules: [string, string, string[], string[]][] = [
    // Lowercase only: the database lowercases a username before its check (private.normalize_profile), as zod does.
    ['profiles', 'username', ['POST /auth/register', 'PUT /user'], [
      ...Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i)).filter((c) => !/[A-Z]/.test(c)),
      ' ',
      'é',
      'ß',
      '٣',
      '０',
      '\u00a0',
    ]],
    ['profiles', 'display_name', ['POST /auth/register', 'PUT /user'], [
      ...Array.from({ length: 0xa0 }, (_, i) => String.fromCharCode(i + 1)),
      ...codePoints(0x200b, 0x2010),
      ...codePoints(0x2028, 0x202f),
      ...codePoints(0x2060, 0x206f),
      '\ufeff',
      'é',
      '😀',
    ]],
  ];

  it.each(characterRules)(
    '%s.%s: the routes accept the characters its check constraint accepts',
    async (table, column, routeNames, characters) => {
      const candidates = characters.map((c) => `ab${c}c`);
      const accepted = await sqlAccepts(table, column, candidates);
      const sql = candidates.filter((_, i) => accepted[i]).map(quoted);
      for (const [name, field] of fieldsOf(column, routeNames)) {
        expect({ route: name, accepted: candidates.filter((c) => field.safeParse(c).success).map(quoted) }).toEqual({
          route: name,
          accepted: sql,
        });
      }
    },
  );

  it('profiles.avatar_url: PUT /user accepts the storage paths its check constraint accepts', async () => {
    const paths = [
      'a',
      'a/b.png',
      'A-b_c.d/e9',
      '.a',
      '/a',
      '-a',
      '_a',
      'a..b',
      'a/../b',
      'a/./b',
      'a b',
      'a:b',
      'a?b',
      'a#b',
      'a%2e',
      'a\\b',
      'é',
      'https://example.test/a.png',
      'javascript:alert(1)',
      null,
    ];
    const accepted = await sqlAccepts('profiles', 'avatar_url', paths);
    const field = bodyFields('PUT /user').avatar_url;
    expect(paths.filter((path) => field.safeParse(path).success)).toEqual(paths.filter((_, i) => accepted[i]));
  });

  it('profiles.time_zone: the routes accept every time zone the database knows (private.time_zones)', async () => {
    const names = (await asRoot`select name from private.time_zones`).map((row) => row.name as string);
    expect(names).toContain('Europe/Paris');
    for (const [name, field] of fieldsOf('time_zone', ['POST /auth/register', 'PUT /user'])) {
      expect({ route: name, refused: names.filter((zone) => !field.safeParse(zone).success) }).toEqual({
        route: name,
        refused: [],
      });
    }
  });

  it('posts.media: the routes accept as many media as its check constraint', async () => {
    const counts = Array.from({ length: 51 }, (_, n) => n);
    const lists = counts.map((n) => Array.from({ length: n }, (_, i) => `media/${i}.jpg`));
    const accepted = await sqlAccepts('posts', 'media', lists);
    const sql = ranges(counts.filter((_, i) => accepted[i]));
    for (const [name, field] of fieldsOf('media', ['POST /post/create', 'PUT /post/{postId}'])) {
      expect({ route: name, counts: ranges(counts.filter((n) => field.safeParse(lists[n]).success)) }).toEqual({
        route: name,
        counts: sql,
      });
    }
  });

  it('posts.emotion: the routes accept the integers its check constraint accepts, and null', async () => {
    const [{ type }] =
      await asRoot`select format_type(atttypid, null) as type from pg_attribute where attrelid = 'public.posts'::regclass and attname = 'emotion'`;
    expect(['smallint', 'integer', 'bigint']).toContain(type);
    const numbers = Array.from({ length: 601 }, (_, i) => i - 300);
    const accepted = await sqlAccepts('posts', 'emotion', [...numbers, null]);
    const sql = ranges(numbers.filter((_, i) => accepted[i]));
    expect(accepted.at(-1)).toBe(true);
    for (const [name, field] of fieldsOf('emotion', ['POST /post/create', 'PUT /post/{postId}'])) {
      const integers = ranges(numbers.filter((n) => field.safeParse(n).success));
      expect({ route: name, integers, null: field.safeParse(null).success, fraction: field.safeParse(50.5).success })
        .toEqual({ route: name, integers: sql, null: true, fraction: false });
    }
  });

  const enums: [string, string, z.ZodType][] = [
    ['post_privacy', 'POST /post/create body', bodyFields('POST /post/create').privacy],
    ['post_privacy', 'PUT /post/{postId} body', bodyFields('PUT /post/{postId}').privacy],
    ['report_target', 'GET /admin/reports ?type', queryField('GET /admin/reports', 'type')],
    ['ban_element', 'GET /admin/bans ?type', queryField('GET /admin/bans', 'type')],
  ];

  it.each(enums)('enum %s: %s accepts exactly its values', async (type, _, field) => {
    const [{ labels }] = await asRoot`select enum_range(null::public.${asRoot(type)})::text[] as labels`;
    const candidates = [...new Set([...labels, ...enumValues(field), 'other'])];
    expect(candidates.filter((value) => field.safeParse(value).success)).toEqual(labels);
  });

  it('page sizes: every ?limit accepts what private.page_limit accepts, and documents its default and maximum', async () => {
    const { accepted, fallback } = await asRoot.begin(async (tx) => {
      await tx`create function pg_temp.accepts(n integer) returns boolean language plpgsql as $$
        begin perform private.page_limit(n); return true; exception when others then return false; end $$`;
      const rows = await tx`select n, pg_temp.accepts(n) as ok from generate_series(-5, 1000) n order by n`;
      const [{ limit }] = await tx`select private.page_limit(null) as limit`;
      return { accepted: rows.filter((row) => row.ok).map((row) => row.n as number), fallback: limit as number };
    });
    expect(accepted.at(-1)).toBeLessThan(1000);
    const limited = routes.filter((r) => queryShape(r)?.limit);
    expect(limited.length).toBeGreaterThan(10);
    for (const r of limited) {
      const field = queryShape(r)!.limit;
      const zod = ranges(
        Array.from({ length: 1006 }, (_, i) => i - 5).filter((n) => field.safeParse(String(n)).success),
      );
      expect({ route: `${r.method} ${r.path}`, limits: zod, absent: field.safeParse(undefined).data })
        .toEqual({ route: `${r.method} ${r.path}`, limits: ranges(accepted), absent: undefined });
    }
    const documented = openApiParameters('limit');
    expect(documented.length).toBe(limited.length);
    for (const { description } of documented) {
      expect(description).toBe(`Default ${fallback}, at most ${accepted.at(-1)}`);
    }
  });

  const config = parse(readFileSync('supabase/config.toml', 'utf8')) as {
    auth: { minimum_password_length: number; email: { otp_length: number } };
  };

  it("codes: the routes accept the codes of config.toml's [auth.email] otp_length digits", () => {
    const { otp_length: digits } = config.auth.email;
    for (
      const [name, field] of fieldsOf('code', ['POST /auth/confirm_email', 'POST /auth/reset_password', 'DELETE /user'])
    ) {
      const accepted = Array.from({ length: 13 }, (_, n) => n).filter((n) => field.safeParse('7'.repeat(n)).success);
      expect({ route: name, lengths: accepted, letters: field.safeParse('a'.repeat(digits)).success }).toEqual({
        route: name,
        lengths: [digits],
        letters: false,
      });
    }
  });

  const passwordRoutes = ['POST /auth/register', 'POST /auth/reset_password', 'PUT /user'];

  it("passwords: the routes accept from config.toml's minimum_password_length to the longest Auth takes", async () => {
    const minimum = config.auth.minimum_password_length;
    const account = await createAccount('password');
    const taken: boolean[] = [];
    for (const n of [minimum - 1, minimum, 72, 73]) {
      taken.push(!(await admin.updateUserById(account.id, { password: 'a'.repeat(n) })).error);
    }
    // Auth runs with config.toml's minimum, and bcrypt's limit of 72 bytes.
    expect(taken).toEqual([false, true, true, false]);
    for (const [name, field] of fieldsOf('password', passwordRoutes)) {
      expect({ route: name, lengths: ranges(zodLengths(field)) }).toEqual({ route: name, lengths: `${minimum}..72` });
    }
  });

  it("passwords: the routes count a password's length as Auth does", async () => {
    const account = await createAccount('password');
    const candidates = [3, 4, 36, 37].map((n) => 'é'.repeat(n));
    const disagreements: string[] = [];
    for (const password of candidates) {
      const auth = !(await admin.updateUserById(account.id, { password })).error;
      for (const [name, field] of fieldsOf('password', passwordRoutes)) {
        if (field.safeParse(password).success !== auth) {
          disagreements.push(`${name}: ${password.length} × é, Auth ${auth ? 'takes' : 'refuses'} it`);
        }
      }
    }
    expect(disagreements).toEqual([]);
  });
});

function codePoints(from: number, to: number): string[] {
  return Array.from({ length: to - from + 1 }, (_, i) => String.fromCodePoint(from + i));
}

function quoted(text: string): string {
  return JSON.stringify(text);
}

function queryShape(r: (typeof routes)[number]): Record<string, z.ZodType> | undefined {
  return (r.request?.query as z.ZodObject<z.ZodRawShape> | undefined)?.shape as Record<string, z.ZodType> | undefined;
}

function queryField(name: string, field: string): z.ZodType {
  const found = queryShape(route(name))?.[field];
  if (!found) throw new Error(`${name} has no ?${field}`);
  return found;
}
