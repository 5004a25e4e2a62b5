// The facade answers with the JSON of the SQL API functions, and documents it with the zod schema of each route.
// Each function is called here as real accounts would call it, and its JSON checked against its route's schema:
// the same keys at every level, and a successful parse.
import { readdirSync, readFileSync } from 'node:fs';
import type { z } from '@hono/zod-openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { rpcRoutes } from '../../client/database.ts';
import { type Account, createAccount, makeAdmin } from '../helpers/accounts.ts';
import { as, asRoot, rpc } from '../helpers/db.ts';
import { successSchema } from '../helpers/routes.ts';
import { keyDiff } from '../helpers/shapes.ts';
import { authIsRunning } from '../helpers/stack.ts';

/**
 * Each function, the route that answers with its JSON and, when the route wraps it, the key it sits under: the
 * pairs client/database.ts types supabase-js's rpc() results by (so this keeps those types true), and the login,
 * which answers with me's JSON too.
 */
const pairs: { fn: string; route: string; under?: string }[] = [
  ...Object.entries(rpcRoutes as Record<string, { route: string; under?: string }>).map(([fn, pair]) => ({
    fn,
    ...pair,
  })),
  { fn: 'me', route: 'POST /auth/login', under: 'profile' },
];

describe.skipIf(!authIsRunning)('the JSON of the SQL API functions', () => {
  const results = new Map<string, unknown>();

  // Accounts that make every list non-empty and every viewer flag present; each result kept under its function.
  beforeAll(async () => {
    const [author, fan, moderator, secret, pest, offender] = await Promise.all(
      ['author', 'fan', 'moderator', 'secret', 'pest', 'offender'].map((label) =>
        createAccount(label, { isPrivate: label === 'secret' })
      ),
    );
    await makeAdmin(moderator);
    // rpc() looks up the parameters' types, which a function without parameters lacks.
    const withoutArguments = async (actor: Account, fn: string) =>
      (await as(actor, (tx) => tx.unsafe(`select public.${fn}() as result`)))[0].result;
    const call = async (actor: Account, fn: string, args?: Record<string, unknown>) => {
      const result = args ? await rpc(actor, fn, args) : await withoutArguments(actor, fn);
      results.set(fn, result);
      return result;
    };

    await call(author, 'me');
    await call(author, 'update_profile', { p_changes: { bio: 'Days, kept.', avatar_url: `${author.id}/avatar.png` } });
    await call(author, 'reset_profile_picture');
    await call(fan, 'get_profile', { p_username: author.username });
    await call(fan, 'follow', { p_username: author.username });
    await rpc(fan, 'follow', { p_username: secret.username });
    await call(secret, 'follow_requests', {});
    await call(secret, 'respond_follow_request', { p_username: fan.username, p_accept: true });
    await call(moderator, 'followers', { p_username: author.username });
    await call(moderator, 'following', { p_username: fan.username });
    await call(author, 'set_close_friend', { p_username: fan.username, p_close: true });
    await call(author, 'close_friends', {});
    await call(author, 'block', { p_username: pest.username });
    await call(author, 'blocks', {});
    await call(fan, 'report_user', { p_username: author.username, p_reason: 'rude' });

    const post = await call(author, 'create_post', {
      p_body: `A day with @${fan.username}`,
      p_media: [`${author.id}/day.jpg`],
      p_emotion: 70,
    });
    await call(fan, 'get_post', { p_post_id: post.id });
    await call(author, 'edit_post', { p_post_id: post.id, p_changes: { body: `A good day with @${fan.username}` } });
    await call(fan, 'like_post', { p_post_id: post.id });
    await call(moderator, 'post_likes', { p_post_id: post.id });
    await call(fan, 'report_post', { p_post_id: post.id, p_reason: 'spam' });
    await call(fan, 'user_posts', { p_username: author.username });
    await call(fan, 'posts_by_day', { p_day: post.day, p_username: author.username });
    await call(fan, 'feed', {});
    await call(fan, 'search', { p_q: 'good day', p_type: 'posts' });
    await call(fan, 'calendar', { p_username: author.username });

    const comment = await call(fan, 'comment_post', { p_post_id: post.id, p_body: `Nice, @${author.username}` });
    const reply = await call(author, 'reply_comment', { p_comment_id: comment.id, p_body: `Thanks, @${fan.username}` });
    await call(moderator, 'get_comment', { p_comment_id: comment.id });
    await call(moderator, 'post_comments', { p_post_id: post.id });
    await call(moderator, 'comment_replies', { p_comment_id: comment.id });
    await call(author, 'like_comment', { p_comment_id: comment.id });
    await call(moderator, 'comment_likes', { p_comment_id: comment.id });
    const report = await call(author, 'report_comment', { p_comment_id: comment.id, p_reason: 'off topic' });
    await call(author, 'notifications', {});
    await call(author, 'read_notifications', {});

    const banned = await rpc(offender, 'create_post', { p_body: `Spam for @${author.username}` });
    await call(moderator, 'admin_reports', {});
    await call(moderator, 'admin_dismiss_report', { p_report_id: report.id });
    await call(moderator, 'admin_ban_user', { p_username: offender.username, p_reason: 'spam', p_ban: true });
    await call(moderator, 'admin_ban_post', { p_post_id: banned.id, p_reason: 'spam', p_ban: true });
    await call(moderator, 'admin_bans', {});
    await call(moderator, 'admin_ban_history', { p_element_id: offender.id });
    await call(moderator, 'admin_ban_history_by_admin', { p_username: moderator.username });
    await call(moderator, 'admin_delete_banned_post', { p_post_id: banned.id });
    await call(moderator, 'admin_delete_banned_user', { p_username: offender.username });

    await call(moderator, 'mute', { p_username: fan.username, p_notifications_only: true, p_duration: 3600 });
    await call(moderator, 'mutes', {});
    await call(moderator, 'my_sessions');
    await call(moderator, 'end_other_sessions');
    // A second factor's recovery, waited out (the rows as Auth's MFA verify and the e-mailed code leave them).
    await asRoot`insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, secret)
      values (gen_random_uuid(), ${fan.id}, 'phone', 'totp', 'verified', now(), now(), 'JBSWY3DPEHPK3PXP')`;
    await asRoot`select private.start_factor_recovery(${fan.id})`;
    await call(fan, 'factor_recovery');
    await asRoot`update private.factor_recoveries set requested_at = now() - interval '73 hours', completes_at = now() - interval '1 hour'
      where user_id = ${fan.id}`;
    await call(fan, 'complete_factor_recovery');
    await asRoot`insert into private.factor_recoveries (user_id, completes_at) values (${author.id}, now() + interval '72 hours')`;
    await call(author, 'cancel_factor_recovery');

    await call(author, 'remove_follower', { p_username: fan.username });
    await call(author, 'delete_comment', { p_comment_id: reply.id });
    await call(author, 'delete_post', { p_post_id: post.id });
    // Last: it ends the author's own session.
    await call(author, 'end_session', { p_session_id: author.claims.session_id });
  }, 120_000);

  it.each(pairs)('$fn: the keys and values of $route', ({ fn, route, under }) => {
    const declared = successSchema(route);
    const schema = under ? (declared as z.ZodObject<z.ZodRawShape>).shape[under] as z.ZodType : declared;
    const json = results.get(fn);
    expect(json, `${fn} was not called: call it in the beforeAll of test/db/response-shapes.test.ts`).toBeDefined();
    expect(keyDiff(schema, json)).toEqual([]);
    expect(schema.safeParse(json).error?.issues ?? []).toEqual([]);
  });

  it('covers every function a route answers with', () => {
    const routeSources = readdirSync('functions/api/routes').map((file) =>
      readFileSync(`functions/api/routes/${file}`, 'utf8')
    ).join('\n');
    const called = [...routeSources.matchAll(/rpc\(c\.var\.deps, c\.var\.caller, '([a-z_]+)'/g)].map((m) => m[1]);
    expect(called.length).toBeGreaterThan(30);
    expect(
      called.filter((fn) => !pairs.some((pair) => pair.fn === fn)),
      'functions a route answers with that rpcRoutes lacks: add each to rpcRoutes in client/database.ts',
    ).toEqual([]);
  });
});
