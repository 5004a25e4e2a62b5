// supabase-js through PostgREST (/rest/v1): the reads a supabase-js app makes most, sent through the gateway
// as supabase-js sends them (apikey, the caller's token), and the SQL PostgREST 12 runs for each, which pgbench
// runs alone: the request settings PostgREST sets per transaction, then its statement (the CTE around the
// query and the JSON aggregate), with literals for its bind parameters. And the facade beside PostgREST on the
// same SQL function: GET /post/:id against rpc('get_post').
import { literal } from './endpoints.ts';
import type { Fixtures } from './fixtures.ts';

export interface RestCase {
  name: string;
  caller: 'anon' | 'reader';
  method: 'GET' | 'POST';
  /** Relative to /rest/v1. */
  path: string;
  body?: unknown;
  /** What PostgREST runs after the role, claims and role settings (identitySql). */
  sql: string;
}

/** The request settings PostgREST sets besides the role's (search_path, method, path, headers, cookies). */
function requestSettings(method: string, path: string): string {
  return `select set_config('search_path', '"public", "public", "extensions"', true), ` +
    `set_config('request.method', ${literal(method)}, true), set_config('request.path', ${literal(path)}, true), ` +
    `set_config('request.headers', '{"accept":"application/json"}', true), set_config('request.cookies', '{}', true);\n`;
}

const responseColumns = `nullif(current_setting('response.headers', true), '') AS response_headers, ` +
  `nullif(current_setting('response.status', true), '') AS response_status, '' AS response_inserted`;

/** A table read: PostgREST's wrapping of `query`. */
function read(path: string, query: string): string {
  return requestSettings('GET', path) +
    `WITH pgrst_source AS (${query}) SELECT null::bigint AS total_result_set, pg_catalog.count(_postgrest_t) AS page_total, ` +
    `coalesce(json_agg(_postgrest_t), '[]') AS body, ${responseColumns} FROM (SELECT * FROM pgrst_source) _postgrest_t`;
}

/** An rpc() call of a function returning one json value, its arguments sent as a JSON body. */
function call(fn: string, args: Record<string, string>): string {
  const body = JSON.stringify(args);
  const columns = Object.keys(args).map((name) => `"${name}"`).join(', ');
  const types = Object.keys(args).map((name) => `"${name}" uuid`).join(', ');
  const named = Object.keys(args).map((name) => `"${name}" := pgrst_body."${name}"`).join(', ');
  const argsLateral = columns
    ? `, LATERAL (SELECT ${columns} FROM json_to_recordset(pgrst_uniform_json.val) AS _(${types}) LIMIT 1) pgrst_body`
    : '';
  return requestSettings('POST', `/rpc/${fn}`) +
    `WITH pgrst_source AS (SELECT pgrst_call.pgrst_scalar FROM (SELECT ${
      literal(body)
    }::json AS json_data) pgrst_payload, ` +
    `LATERAL (SELECT CASE WHEN json_typeof(pgrst_payload.json_data) = 'array' THEN pgrst_payload.json_data ` +
    `ELSE json_build_array(pgrst_payload.json_data) END AS val) pgrst_uniform_json${argsLateral}, ` +
    `LATERAL (SELECT "public"."${fn}"(${named}) pgrst_scalar) pgrst_call) ` +
    `SELECT null::bigint AS total_result_set, 1 AS page_total, coalesce(json_agg(_postgrest_t.pgrst_scalar)->0, 'null') AS body, ` +
    `${responseColumns} FROM (SELECT "${fn}".* FROM "pgrst_source" AS "${fn}") _postgrest_t`;
}

const newestPostsPath =
  '/posts?select=id,body,emotion,day,author:profiles!author_id(username,display_name)&order=created_at.desc&limit=20';
const newestPostsQuery =
  `SELECT "public"."posts"."id", "public"."posts"."body", "public"."posts"."emotion", "public"."posts"."day", ` +
  `row_to_json("posts_author_1".*)::jsonb AS "author" FROM "public"."posts" LEFT JOIN LATERAL (SELECT "profiles_1"."username", ` +
  `"profiles_1"."display_name" FROM "public"."profiles" AS "profiles_1" WHERE "profiles_1"."id" = "public"."posts"."author_id") ` +
  `AS "posts_author_1" ON TRUE ORDER BY "posts"."created_at" DESC LIMIT 20 OFFSET 0`;

export function restCases(f: Fixtures): RestCase[] {
  const commentsPath =
    `/comments?select=id,body,created_at&post_id=eq.${f.commentedPostId}&order=created_at.desc&limit=20`;
  return [
    {
      name: 'newest 20 posts with authors (anon)',
      caller: 'anon',
      method: 'GET',
      path: newestPostsPath,
      sql: read('/posts', newestPostsQuery),
    },
    {
      name: 'newest 20 posts with authors (signed in)',
      caller: 'reader',
      method: 'GET',
      path: newestPostsPath,
      sql: read('/posts', newestPostsQuery),
    },
    {
      name: 'a profile with its counts (celebrity)',
      caller: 'reader',
      method: 'GET',
      path: '/profiles?select=username,display_name,followers_count,following_count,posts_count&username=eq.celebrity',
      sql: read(
        '/profiles',
        `SELECT "public"."profiles"."username", "public"."profiles"."display_name", "public"."profiles"."followers_count", ` +
          `"public"."profiles"."following_count", "public"."profiles"."posts_count" FROM "public"."profiles" ` +
          `WHERE "public"."profiles"."username" = 'celebrity' LIMIT ALL OFFSET 0`,
      ),
    },
    {
      name: "a page of a post's comments (5k comments)",
      caller: 'reader',
      method: 'GET',
      path: commentsPath,
      sql: read(
        '/comments',
        `SELECT "public"."comments"."id", "public"."comments"."body", "public"."comments"."created_at" ` +
          `FROM "public"."comments" WHERE "public"."comments"."post_id" = ${literal(f.commentedPostId)} ` +
          `ORDER BY "comments"."created_at" DESC LIMIT 20 OFFSET 0`,
      ),
    },
    {
      name: "rpc('feed') (following 1,000)",
      caller: 'reader',
      method: 'POST',
      path: '/rpc/feed',
      body: {},
      sql: call('feed', {}),
    },
    {
      name: "rpc('get_post')",
      caller: 'reader',
      method: 'POST',
      path: '/rpc/get_post',
      body: { p_post_id: f.likedPostId },
      sql: call('get_post', { p_post_id: f.likedPostId }),
    },
  ];
}
