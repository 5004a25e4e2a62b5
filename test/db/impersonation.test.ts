// Studio's SQL editor, asked to "impersonate" a user or anon, runs the query as `postgres` after setting the role,
// the claims (a user's with a made-up session_id), the request settings with a marker path, and then calling
// PostgREST's pre-request hook as PostgREST would (test/helpers/studio.ts mirrors what it sends). The impersonated
// user must see and be refused what they are through supabase-js (a connection as `authenticator`, as
// test/helpers/db.ts `as` makes), while a token with an ended session stays refused on PostgREST's path.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type Account, banDirectly, createAccount } from '../helpers/accounts.ts';
import { type Actor, anon, as, asRoot, errorOf, rpc, type Tx } from '../helpers/db.ts';
import { impersonating, impersonationPath } from '../helpers/studio.ts';
import { authIsRunning } from '../helpers/stack.ts';

const visiblePostsOf = (tx: Tx, ids: string[]) =>
  tx`select id from public.posts where id = any(${ids}::uuid[]) order by id`.then((rows) => rows.map((r) => r.id));

/** PostgREST's request for `actor`: the role and claims, the request settings, then its pre-request hook. */
function throughPostgrest<T>(actor: Actor, path: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  return as(actor, async (tx) => {
    await tx`select set_config('request.method', 'POST', true), set_config('request.path', ${path}, true)`;
    await tx`select private.check_request()`;
    return work(tx);
  });
}

/** What `work` answers, or the refusal it meets, as one value to compare. */
const outcome = (work: Promise<unknown>) =>
  work.then((value) => ({ value }), (error) => ({ refused: { code: error.code, hint: error.hint } }));

/** The same statement impersonated in Studio and as the actor through PostgREST: both outcomes. */
async function bothWays(account: Account | 'anon', statement: (tx: Tx) => Promise<unknown>) {
  const actor = account === 'anon' ? anon : account;
  return [
    await outcome(impersonating(account, statement)),
    await outcome(throughPostgrest(actor, '/rpc/x', statement)),
  ];
}

const writesOf = async (user: Account) =>
  (await asRoot`select coalesce(max(writes), 0)::int as n from private.write_marks where user_id = ${user.id}`)[0].n;

describe.skipIf(!authIsRunning)(
  "impersonating in Studio's SQL editor, which calls PostgREST's pre-request hook",
  () => {
    it('the hook Studio calls is the one PostgREST calls', async () => {
      const [row] = await asRoot`
      select s.setconfig from pg_catalog.pg_db_role_setting s
      where s.setrole = (select oid from pg_catalog.pg_roles where rolname = 'authenticator')`;
      expect(row.setconfig).toContain('pgrst.db_pre_request=private.check_request');
    });

    it('a signed-in user sees what they see through supabase-js, and writes as them (the hook counts the write)', async () => {
      const [viewer, friend] = await Promise.all(['viewer', 'friend'].map((label) => createAccount(label)));
      const shown = await rpc(friend, 'create_post', { p_body: 'for everyone' });

      const asThemselves = await as(viewer, (tx) => visiblePostsOf(tx, [shown.id]));
      expect(asThemselves).toEqual([shown.id]);
      expect(await impersonating(viewer, (tx) => visiblePostsOf(tx, [shown.id]))).toEqual(asThemselves);
      const [me] = await impersonating(viewer, (tx) => tx`select public.me() as me`);
      expect(me.me).toMatchObject({ username: viewer.username });

      const before = await writesOf(viewer);
      await impersonating(viewer, (tx) => tx`select public.like_post(${shown.id})`);
      expect(await asRoot`select user_id from public.post_likes where post_id = ${shown.id}`).toEqual([{
        user_id: viewer.id,
      }]);
      expect(await writesOf(viewer)).toBe(before + 1);
    });

    it('a blocked user: the blocker and their posts are not there, and acting on them is refused as for them', async () => {
      const [viewer, blocker] = await Promise.all(['blocked', 'blocker'].map((label) => createAccount(label)));
      const hidden = await rpc(blocker, 'create_post', { p_body: 'not for the blocked one' });
      await rpc(blocker, 'block', { p_username: viewer.username });

      expect(await impersonating(viewer, (tx) => visiblePostsOf(tx, [hidden.id]))).toEqual([]);
      const [seen, asThemselves] = await bothWays(viewer, (tx) => tx`select public.like_post(${hidden.id})`);
      expect(seen).toEqual(asThemselves);
      expect(seen).toEqual({ refused: { code: 'PT404', hint: 'post_not_found' } });
      const [follow, followAsThemselves] = await bothWays(
        viewer,
        (tx) => tx`select public.follow(${blocker.username}, true)`,
      );
      expect(follow).toEqual(followAsThemselves);
      expect(follow).toHaveProperty('refused');
      // The blocker, impersonated, still sees their own post.
      expect(await impersonating(blocker, (tx) => visiblePostsOf(tx, [hidden.id]))).toEqual([hidden.id]);
    });

    it("a private account's follower sees its posts; a stranger, impersonated the same way, does not", async () => {
      const [owner, follower, stranger] = await Promise.all([
        createAccount('private', { isPrivate: true }),
        createAccount('follower'),
        createAccount('stranger'),
      ]);
      await rpc(follower, 'follow', { p_username: owner.username });
      await rpc(owner, 'respond_follow_request', { p_username: follower.username, p_accept: true });
      const post = await rpc(owner, 'create_post', { p_body: 'for my followers' });

      expect(await impersonating(follower, (tx) => visiblePostsOf(tx, [post.id]))).toEqual([post.id]);
      expect(await as(follower, (tx) => visiblePostsOf(tx, [post.id]))).toEqual([post.id]);
      expect(await impersonating(stranger, (tx) => visiblePostsOf(tx, [post.id]))).toEqual([]);
      const [liked, likedAsThemselves] = await bothWays(stranger, (tx) => tx`select public.like_post(${post.id})`);
      expect(liked).toEqual(likedAsThemselves);
      expect(liked).toEqual({ refused: { code: 'PT404', hint: 'post_not_found' } });
    });

    it('a banned user reads as nobody and is refused as nobody, as their token is', async () => {
      const [banned, author] = await Promise.all([createAccount('banned'), createAccount('author')]);
      const post = await rpc(author, 'create_post', { p_body: 'public' });
      await banDirectly(banned);

      const [row] = await impersonating(banned, (tx) => tx`select private.uid() as uid`);
      expect(row.uid).toBeNull();
      expect(await impersonating(banned, (tx) => visiblePostsOf(tx, [post.id]))).toEqual([post.id]);
      const [liked, likedWithToken] = await bothWays(banned, (tx) => tx`select public.like_post(${post.id})`);
      expect(liked).toEqual(likedWithToken);
      expect(liked).toHaveProperty('refused.code', 'PT401');
    });

    it("an account with a second factor: at aal1 (Studio's default) as its aal1 session, at aal2 as its whole self", async () => {
      const owner = await createAccount('guarded');
      await asRoot`insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, secret)
        values (${randomUUID()}, ${owner.id}, 'phone', 'totp', 'verified', now(), now(), 'JBSWY3DPEHPK3PXP')`;
      const me = (tx: Tx) => tx`select public.me() as me`;
      const [impersonated, asItsSession] = await bothWays(owner, me);
      expect(impersonated).toEqual(asItsSession);
      expect(impersonated).toEqual({ refused: { code: 'PT403', hint: 'second_factor_required' } });
      const [stepped] = await impersonating(owner, me, 'aal2');
      expect(stepped.me).toMatchObject({ username: owner.username });
    });

    it('anon sees what anybody may, and a function only users may call is refused', async () => {
      const [owner, author] = await Promise.all([
        createAccount('anonprivate', { isPrivate: true }),
        createAccount('anonpub'),
      ]);
      const [hidden, shown] = [
        await rpc(owner, 'create_post', { p_body: 'followers only' }),
        await rpc(author, 'create_post', { p_body: 'public' }),
      ];
      const ids = [hidden.id, shown.id];
      expect(await impersonating('anon', (tx) => visiblePostsOf(tx, ids))).toEqual([shown.id]);
      expect(await as(anon, (tx) => visiblePostsOf(tx, ids))).toEqual([shown.id]);
      const [row] = await impersonating('anon', (tx) => tx`select private.uid() as uid`);
      expect(row.uid).toBeNull();
      expect(await errorOf(impersonating('anon', (tx) => tx`select public.like_post(${shown.id})`))).toMatchObject({
        code: '42501',
      });
    });

    it("PostgREST's own requests: claims whose session has ended stay refused by the hook, marker path or not", async () => {
      const user = await createAccount('user');
      const [live] = await throughPostgrest(user, '/posts', (tx) => tx`select private.uid() as uid`);
      expect(live.uid).toBe(user.id);

      const ended = { ...user, claims: { ...user.claims, session_id: randomUUID() } };
      for (const path of ['/posts', '/rpc/like_post', impersonationPath]) {
        expect(await errorOf(throughPostgrest(ended, path, (tx) => tx`select 1`))).toMatchObject({
          code: 'PT401',
          hint: 'unauthorized',
        });
      }
      // Past the hook (a caller that skipped it), the session check of private.uid() still holds.
      const [marked] = await as(ended, async (tx) => {
        await tx`select set_config('request.path', ${impersonationPath}, true)`;
        return tx`select private.uid() as uid`;
      });
      expect(marked.uid).toBeNull();
      expect(await errorOf(as(ended, (tx) => tx`select public.like_post(${randomUUID()})`))).toMatchObject({
        code: 'PT401',
      });
    });

    it("a signed-out user's token is refused by the hook, while Studio can still impersonate the account", async () => {
      const user = await createAccount('signedout');
      await asRoot`delete from auth.sessions where user_id = ${user.id}`;
      expect(await errorOf(throughPostgrest(user, '/posts', (tx) => tx`select 1`))).toMatchObject({
        code: 'PT401',
        hint: 'unauthorized',
      });
      const [row] = await impersonating(user, (tx) => tx`select private.uid() as uid`);
      expect(row.uid).toBe(user.id);
    });
  },
);
