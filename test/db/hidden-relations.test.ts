// What a client may not learn through direct SQL (supabase-js, or a raw session as its role): who blocked
// them, the relations of banned accounts, and what the security-definer helpers know about others.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { banDirectly, createAccount, makeAdmin } from '../helpers/accounts.ts';
import { anon, as, asRoot, errorOf, rpc } from '../helpers/db.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('a block', () => {
  it('is refused on a direct follow or close-friend insert exactly as an id nobody has', async () => {
    const fan = await createAccount('fan');
    const blocker = await createAccount('blocker');
    const stranger = await createAccount('stranger');
    await rpc(blocker, 'block', { p_username: fan.username, p_block: true });
    for (const table of ['follows', 'close_friends'] as const) {
      const insert = (id: string) =>
        as(
          fan,
          (tx) =>
            table === 'follows'
              ? tx`insert into public.follows (followee_id) values (${id})`
              : tx`insert into public.close_friends (friend_id) values (${id})`,
        );
      const blocked = await errorOf(insert(blocker.id));
      const unknown = await errorOf(insert(randomUUID()));
      expect(blocked).toEqual(unknown);
      expect(blocked.code).toBe('42501');
      expect(await insert(stranger.id)).toEqual([]); // someone visible: allowed
    }
  });
});

describe.skipIf(!authIsRunning)('a banned account', () => {
  it('has its follows and close-friend entries hidden from the other party until unbanned; admins see them', async () => {
    const fan = await createAccount('fan');
    const banned = await createAccount('banned');
    const admin = await createAccount('admin');
    await makeAdmin(admin);
    await rpc(fan, 'follow', { p_username: banned.username });
    await rpc(banned, 'follow', { p_username: fan.username });
    await rpc(fan, 'set_close_friend', { p_username: banned.username, p_close: true });
    const rows = (actor: typeof fan) =>
      as(actor, async (tx) => ({
        follows: (await tx`select 1 from public.follows where ${banned.id} in (follower_id, followee_id)`).length,
        close: (await tx`select 1 from public.close_friends where friend_id = ${banned.id}`).length,
      }));
    expect(await rows(fan)).toEqual({ follows: 2, close: 1 });
    await rpc(admin, 'admin_ban_user', { p_username: banned.username, p_reason: 'spam' });
    expect(await rows(fan)).toEqual({ follows: 0, close: 0 });
    expect(await rows(admin)).toEqual({ follows: 2, close: 1 });
    await rpc(admin, 'admin_ban_user', { p_username: banned.username, p_reason: 'appeal granted', p_ban: false });
    expect(await rows(fan)).toEqual({ follows: 2, close: 1 });
  });
});

describe.skipIf(!authIsRunning)('a banned post', () => {
  it('cannot be rewritten by its author, directly or with edit_post; an unbanned one can', async () => {
    const author = await createAccount('author');
    const admin = await createAccount('admin');
    await makeAdmin(admin);
    const post = await rpc(author, 'create_post', { p_body: 'before the ban' });
    await rpc(admin, 'admin_ban_post', { p_post_id: post.id, p_reason: 'abuse' });
    const direct = await errorOf(
      as(author, (tx) => tx`update public.posts set body = 'rewritten' where id = ${post.id}`),
    );
    expect(direct).toMatchObject({ code: 'PT403', hint: 'post_banned' });
    const edited = await errorOf(rpc(author, 'edit_post', { p_post_id: post.id, p_changes: { body: 'rewritten' } }));
    expect(edited).toMatchObject({ code: 'PT403', hint: 'post_banned' });
    const [row] = await asRoot`select body from public.posts where id = ${post.id}`;
    expect(row.body).toBe('before the ban');
    await rpc(admin, 'admin_ban_post', { p_post_id: post.id, p_reason: 'reviewed', p_ban: false });
    expect((await rpc(author, 'edit_post', { p_post_id: post.id, p_changes: { body: 'after review' } })).body).toBe(
      'after review',
    );
  });
});

describe.skipIf(!authIsRunning)('the security-definer helpers', () => {
  it('answer only about the caller, and cards show only accounts the caller may see', async () => {
    const viewer = await createAccount('viewer');
    const other = await createAccount('other');
    const shy = await createAccount('shy', { isPrivate: true });
    const banned = await createAccount('banned');
    const blocker = await createAccount('blocker');
    await rpc(other, 'follow', { p_username: shy.username });
    await rpc(shy, 'respond_follow_request', { p_username: other.username, p_accept: true });
    await rpc(shy, 'set_close_friend', { p_username: other.username, p_close: true });
    await rpc(blocker, 'block', { p_username: other.username, p_block: true });
    await banDirectly(banned);
    const caller = (actor: typeof anon) =>
      as(actor, (tx) =>
        tx`
      select array(select private.accounts_i_follow()) as follows,
             array(select private.accounts_listing_me()) as listing_me,
             array(select private.accounts_blocked_either_way()) as blocked,
             private.card(${banned.id}) as banned_card,
             private.card(${other.id}) as other_card`);

    // The caller's own relations, and nobody else's: there is no argument to ask about another account.
    expect((await caller(other))[0]).toEqual({
      follows: [shy.id],
      listing_me: [shy.id],
      blocked: [blocker.id],
      banned_card: null,
      other_card: expect.objectContaining({ username: other.username }),
    });
    for (const actor of [anon, viewer]) {
      expect([actor.name, (await caller(actor))[0]]).toEqual([actor.name, {
        follows: [],
        listing_me: [],
        blocked: [],
        banned_card: null,
        other_card: expect.objectContaining({ username: other.username }),
      }]);
    }
  });

  it('refuse_if_blocked_with answers one 404 for a block, a banned account and an unknown one', async () => {
    const [caller, blocker, banned, free] = await Promise.all(
      ['caller', 'blocker', 'banned', 'free'].map((label) => createAccount(label)),
    );
    await rpc(blocker, 'block', { p_username: caller.username, p_block: true });
    await banDirectly(banned);
    const refusal = (other: string) => errorOf(as(caller, (tx) => tx`select private.refuse_if_blocked_with(${other})`));
    for (const other of [blocker.id, banned.id, randomUUID()]) {
      expect(await refusal(other)).toMatchObject({ code: 'PT404', hint: 'user_not_found', message: 'No such user' });
    }
    await as(caller, (tx) => tx`select private.refuse_if_blocked_with(${free.id})`);
  });

  it("the finders answer only what the caller may see; the one that sees every public match is not the API roles' to call", async () => {
    const [viewer, writer, blocker] = await Promise.all(
      ['viewer', 'writer', 'blocker'].map((label) => createAccount(label)),
    );
    const word = `w${randomUUID().slice(0, 8)}`;
    const shown = (await rpc(writer, 'create_post', { p_body: `${word} for all` })).id;
    const onlyMe = (await rpc(writer, 'create_post', {
      p_body: `${word} for me`,
      p_privacy: 'private',
      p_media: [`${writer.id}/${word}.jpg`],
    })).id;
    const blockers = (await rpc(blocker, 'create_post', { p_body: `${word} from a blocker` })).id;
    await rpc(blocker, 'block', { p_username: viewer.username, p_block: true });
    const found = (actor: typeof anon) =>
      as(actor, (tx) => tx`select array(select id from private.visible_post_matches(${word}) order by id) as ids`);

    expect((await found(viewer))[0].ids).toEqual([shown]);
    expect((await found(anon))[0].ids.sort()).toEqual([shown, blockers].sort());
    expect((await found(writer))[0].ids.sort()).toEqual([shown, onlyMe, blockers].sort());
    const accounts = (actor: typeof anon) =>
      as(actor, (tx) => tx`select array(select id from private.account_matches(${blocker.username})) as ids`);
    expect((await accounts(viewer))[0].ids).not.toContain(blocker.id);
    expect((await accounts(anon))[0].ids).toContain(blocker.id);
    const media = `${writer.id}/${word}.jpg`;
    expect((await as(viewer, (tx) => tx`select private.may_read_media(${media}) as ok`))[0].ok).toBe(false);
    expect((await as(writer, (tx) => tx`select private.may_read_media(${media}) as ok`))[0].ok).toBe(true);

    const everyMatch = () =>
      as(viewer, (tx) => tx`select id from private.post_matches(${word}, 'infinity', ${randomUUID()}, 10)`);
    const oneRowForms = () =>
      as(viewer, (tx) =>
        tx`
      select private.may_see_post(p, ${viewer.id}), private.may_see_profile(u, ${viewer.id})
      from public.posts p, public.profiles u where p.id = ${shown} and u.id = ${writer.id}`);
    for (const call of [everyMatch, oneRowForms]) {
      expect((await errorOf(call())).code).toBe('42501');
    }
    expect(
      await asRoot`select id from private.post_matches(${word}, 'infinity', 'ffffffff-ffff-ffff-ffff-ffffffffffff', 10) where id = ${blockers}`,
    )
      .toHaveLength(1);
  });
});
