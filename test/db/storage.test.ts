// Media in Supabase Storage. The Storage server does not run on these machines, so its policies are not
// created here (supabase/schemas/18_storage.sql); what they rely on is: the own-folder rule that profiles and
// posts follow too, and the visibility predicate the media policy calls.
import { describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.ts';
import { anon, as, errorOf, rpc } from '../helpers/db.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('storage paths', () => {
  it("a profile and a post point only into their owner's own folder", async () => {
    const owner = await createAccount('owner');
    const other = await createAccount('other');
    const mine = `${owner.id}/avatar.png`;
    const [row] = await as(
      owner,
      (tx) => tx`update public.profiles set avatar_url = ${mine} where id = ${owner.id} returning avatar_url`,
    );
    expect(row.avatar_url).toBe(mine);
    for (const path of [`${other.id}/avatar.png`, `${owner.id}/`, 'avatar.png']) {
      const refused = await errorOf(
        as(owner, (tx) => tx`update public.profiles set avatar_url = ${path} where id = ${owner.id}`),
      );
      expect([path, refused.code]).toEqual([path, '23514']);
    }
    expect((await rpc(owner, 'create_post', { p_body: 'mine', p_media: [`${owner.id}/a.jpg`] })).media).toEqual([
      `${owner.id}/a.jpg`,
    ]);
    const foreign = await errorOf(
      rpc(owner, 'create_post', { p_body: 'theirs', p_media: [`${owner.id}/a.jpg`, `${other.id}/b.jpg`] }),
    );
    expect(foreign.code).toBe('23514');
  });
});

describe.skipIf(!authIsRunning)('reading a media object', () => {
  it('follows the visibility of the posts that use it', async () => {
    const author = await createAccount('author', { isPrivate: true });
    const follower = await createAccount('follower');
    const friend = await createAccount('friend');
    const stranger = await createAccount('stranger');
    await rpc(follower, 'follow', { p_username: author.username });
    await rpc(friend, 'follow', { p_username: author.username });
    await rpc(author, 'respond_follow_request', { p_username: follower.username, p_accept: true });
    await rpc(author, 'respond_follow_request', { p_username: friend.username, p_accept: true });
    await rpc(author, 'set_close_friend', { p_username: friend.username, p_close: true });
    const everyone = `${author.id}/followers.jpg`;
    const close = `${author.id}/close.jpg`;
    const unused = `${author.id}/unused.jpg`;
    await rpc(author, 'create_post', { p_body: 'for followers', p_media: [everyone] });
    await rpc(author, 'create_post', { p_body: 'for close friends', p_media: [close], p_privacy: 'close_friends' });

    const readable = async (actor: typeof author | typeof anon) => {
      const [row] = await as(actor, (tx) =>
        tx`select private.may_read_media(${everyone}) as everyone,
        private.may_read_media(${close}) as close, private.may_read_media(${unused}) as unused`);
      return row;
    };
    expect(await readable(author)).toEqual({ everyone: true, close: true, unused: false });
    expect(await readable(friend)).toEqual({ everyone: true, close: true, unused: false });
    expect(await readable(follower)).toEqual({ everyone: true, close: false, unused: false });
    expect(await readable(stranger)).toEqual({ everyone: false, close: false, unused: false });
    expect(await readable(anon)).toEqual({ everyone: false, close: false, unused: false });
    await rpc(author, 'block', { p_username: follower.username, p_block: true });
    expect(await readable(follower)).toEqual({ everyone: false, close: false, unused: false });
  });
});
