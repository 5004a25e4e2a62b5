// Every function of the API schema, as the database lists it: anon may call only those granted to it, a banned
// account's live session is unauthorized in every function that needs a user and reads no more than anon in
// the others, and each function has its allowed and denied rpc() calls in this folder.
import { readdirSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { banDirectly } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { anonSdk, refusal, rootComment, rootPost, type Sdk, type SdkUser, sdkUser } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

interface ApiFunction {
  name: string;
  anon: boolean;
  /** Its parameters, and whether each has a default. */
  params: { name: string; optional: boolean }[];
}

async function apiFunctions(): Promise<ApiFunction[]> {
  const rows = await asRoot`
    select p.proname as name, has_function_privilege('anon', p.oid, 'execute') as anon,
      coalesce(p.proargnames, '{}') as names, p.pronargs as count, p.pronargdefaults as defaults
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'public'
      and (has_function_privilege('anon', p.oid, 'execute') or has_function_privilege('authenticated', p.oid, 'execute'))
    order by p.proname`;
  return rows.map((row) => ({
    name: row.name,
    anon: row.anon,
    params: (row.names as string[]).slice(0, row.count).map((name, i) => ({
      name,
      optional: i >= row.count - row.defaults,
    })),
  }));
}

/** Calls `fn` by name with arguments the typed client does not know statically. */
const call = (client: Sdk, fn: string, args: Record<string, unknown>) =>
  client.rpc(fn as 'me', args as Record<PropertyKey, never>);

describe.skipIf(!authIsRunning)('rpc: every function the API schema exposes', () => {
  let functions: ApiFunction[];
  let target: SdkUser; // a plain account with a public post and a comment
  let banned: SdkUser; // signed in, wrote a private post and a comment, then banned
  const visible: Record<string, unknown> = {};
  const bannedOwn: Record<string, unknown> = {};

  beforeAll(async () => {
    functions = await apiFunctions();
    [target, banned] = await Promise.all([sdkUser('target'), sdkUser('banned')]);
    const post = await rootPost(target, 'public');
    const ownPost = await rootPost(banned, 'private');
    const [{ day }] = await asRoot`select day::text from public.posts where id = ${ownPost}`;
    Object.assign(visible, {
      p_username: target.username,
      p_post_id: post,
      p_comment_id: await rootComment(post, target),
      p_element_id: target.id,
      p_report_id: '00000000-0000-4000-8000-000000000000',
      p_reason: 'spam',
      p_body: 'hello',
      p_changes: { bio: 'x' },
      p_session_id: '00000000-0000-4000-8000-000000000000',
      p_factor_id: '00000000-0000-4000-8000-000000000000',
      p_follow: true,
      p_close: true,
      p_block: true,
      p_like: true,
      p_ban: true,
      p_accept: true,
    });
    Object.assign(bannedOwn, {
      p_username: banned.username,
      p_post_id: ownPost,
      p_comment_id: await rootComment(ownPost, banned),
      p_day: day,
      p_q: banned.username,
      p_type: 'users',
      p_email: banned.email,
    });
    // Before the ban, its own private post was its to read.
    expect((await banned.sdk.rpc('get_post', { p_post_id: ownPost })).status).toBe(200);
    await banDirectly(banned);
  });

  /** The arguments of `fn` from `values`: every required parameter, and the optional ones given a value. */
  function argsOf(fn: ApiFunction, values: Record<string, unknown>): Record<string, unknown> {
    const missing = fn.params.filter((p) => !p.optional && !(p.name in values)).map((p) => p.name);
    expect([fn.name, missing], 'a value for each in visible and bannedOwn of test/sdk/rpc-exposure.test.ts')
      .toEqual([fn.name, []]);
    return Object.fromEntries(fn.params.filter((p) => p.name in values).map((p) => [p.name, values[p.name]]));
  }

  it('lists the functions anon and authenticated may call (the schema grants no others)', () => {
    expect(functions.length).toBeGreaterThanOrEqual(48);
    // Written out, as a review of what a signed-out caller reaches: a function granted to anon is added here.
    expect(functions.filter((fn) => fn.anon).map((fn) => fn.name), 'the functions granted to anon').toEqual([
      'calendar',
      'check_registration',
      'comment_likes',
      'comment_replies',
      'followers',
      'following',
      'get_comment',
      'get_post',
      'get_profile',
      'post_comments',
      'post_likes',
      'posts_by_day',
      'search',
      'user_posts',
    ]);
  });

  it('anon calling a function granted to users only gets 401 unauthorized in hint (not 42501), whatever the arguments', async () => {
    for (const fn of functions.filter((f) => !f.anon)) {
      const result = await call(anonSdk(), fn.name, Object.fromEntries(fn.params.map((p) => [p.name, null])));
      expect([fn.name, refusal(result), result.error?.message])
        .toEqual([fn.name, { status: 401, code: 'PT401', hint: 'unauthorized' }, 'Sign in first']);
    }
  });

  it("a banned account's live session is 401 unauthorized in every function that needs a user", async () => {
    for (const fn of functions.filter((f) => !f.anon)) {
      const result = await call(banned.sdk, fn.name, argsOf(fn, visible));
      expect([fn.name, refusal(result)]).toEqual([fn.name, { status: 401, code: 'PT401', hint: 'unauthorized' }]);
    }
  });

  it("a banned account's live session gets exactly anon's answer from the others, about its own things too", async () => {
    for (const fn of functions.filter((f) => f.anon)) {
      const args = argsOf(fn, bannedOwn);
      const asAnon = await call(anonSdk(), fn.name, args);
      const asBanned = await call(banned.sdk, fn.name, args);
      expect([fn.name, asBanned.status, asBanned.error, asBanned.data]).toEqual([
        fn.name,
        asAnon.status,
        asAnon.error,
        asAnon.data,
      ]);
    }
    expect(refusal(await banned.sdk.rpc('get_post', { p_post_id: bannedOwn.p_post_id as string })))
      .toEqual({ status: 404, code: 'PT404', hint: 'post_not_found' });
  });

  it('each function has at least one allowed and one denied rpc() call among the tests of this folder', () => {
    const folder = 'test/sdk'; // vitest runs from the repository's root
    const calls = new Map<string, number>();
    for (const file of readdirSync(folder).filter((name) => name.endsWith('.test.ts'))) {
      for (const match of readFileSync(`${folder}/${file}`, 'utf8').matchAll(/\.rpc\(\s*'([a-z_]+)'/g)) {
        calls.set(match[1], (calls.get(match[1]) ?? 0) + 1);
      }
    }
    const uncovered = functions.map((fn) => fn.name).filter((name) => (calls.get(name) ?? 0) < 2);
    expect(uncovered, "add an allowed and a denied .rpc('name', …) call of each to a test of test/sdk/").toEqual([]);
  });
});
