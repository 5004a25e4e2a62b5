// Studio's SQL editor, asked to "impersonate" a user, runs the query as `postgres` after setting the role, the
// user's claims with a made-up session_id, and a marker path (apps/studio/lib/role-impersonation.ts in
// supabase/supabase). The impersonated user must see and be refused what they are through supabase-js, while a
// token with an ended session stays refused on PostgREST's path (a connection as `authenticator`).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { banDirectly, createAccount } from '../helpers/accounts.ts';
import { as, asRoot, errorOf, rpc, type Tx } from '../helpers/db.ts';
import { impersonating, impersonationPath } from '../helpers/studio.ts';
import { authIsRunning } from '../helpers/stack.ts';

const visiblePostsOf = (tx: Tx, ids: string[]) =>
  tx`select id from public.posts where id = any(${ids}::uuid[]) order by id`.then((rows) => rows.map((r) => r.id));

describe.skipIf(!authIsRunning)("impersonating a user in Studio's SQL editor", () => {
  it('sees what the user sees through supabase-js, and writes as them', async () => {
    const [viewer, blocker, friend] = await Promise.all(
      ['viewer', 'blocker', 'friend'].map((label) => createAccount(label)),
    );
    const hidden = await rpc(blocker, 'create_post', { p_body: 'not for the viewer' });
    const shown = await rpc(friend, 'create_post', { p_body: 'for everyone' });
    await rpc(blocker, 'block', { p_username: viewer.username });
    const ids = [hidden.id, shown.id];

    const asThemselves = await as(viewer, (tx) => visiblePostsOf(tx, ids));
    expect(asThemselves).toEqual([shown.id]);
    expect(await impersonating(viewer, (tx) => visiblePostsOf(tx, ids))).toEqual(asThemselves);
    const [me] = await impersonating(viewer, (tx) => tx`select public.me() as me`);
    expect(me.me).toMatchObject({ username: viewer.username });
    await impersonating(viewer, (tx) => tx`select public.like_post(${shown.id})`);
    expect(await asRoot`select user_id from public.post_likes where post_id = ${shown.id}`).toEqual([{
      user_id: viewer.id,
    }]);
    // Refused as the user is refused: the blocker's post is not there for them.
    expect(await errorOf(impersonating(viewer, (tx) => tx`select public.like_post(${hidden.id})`)))
      .toMatchObject({ code: 'PT404', hint: 'post_not_found' });
  });

  it('of a banned user shows no user, as their tokens are refused', async () => {
    const banned = await createAccount('banned');
    await banDirectly(banned);
    const [row] = await impersonating(banned, (tx) => tx`select private.uid() as uid`);
    expect(row.uid).toBeNull();
  });

  it("does not open PostgREST's path: claims with a session that is not live stay refused there, marker or not", async () => {
    const user = await createAccount('user');
    const [live] = await as(user, (tx) => tx`select private.uid() as uid`);
    expect(live.uid).toBe(user.id);
    const ended = { ...user, claims: { ...user.claims, session_id: randomUUID() } };
    const [plain] = await as(ended, (tx) => tx`select private.uid() as uid`);
    const [marked] = await as(ended, async (tx) => {
      await tx`select set_config('request.path', ${impersonationPath}, true)`;
      return tx`select private.uid() as uid`;
    });
    expect([plain.uid, marked.uid]).toEqual([null, null]);
    expect(await errorOf(as(ended, (tx) => tx`select public.like_post(${randomUUID()})`))).toMatchObject({
      code: 'PT401',
    });
  });
});
