// Follows, requests, followers lists, close friends, blocks and user reports through the API functions.
import { describe, expect, it } from 'vitest';
import { createAccount, makeAdmin } from '../helpers/accounts.ts';
import { anon, as, asRoot, errorOf, heldOpen, lockWaits, rpc } from '../helpers/db.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('public.follow', () => {
  it('follows a public account at once, toggles back, and honours an explicit state', async () => {
    const fan = await createAccount('fan');
    const star = await createAccount('star');
    const followed = await rpc(fan, 'follow', { p_username: star.username });
    expect(followed.state).toBe('following');
    expect(followed.user).toMatchObject({ username: star.username, followers_count: 1, viewer: { following: true } });
    expect((await rpc(fan, 'follow', { p_username: star.username, p_follow: true })).state).toBe('following');
    expect((await rpc(fan, 'follow', { p_username: star.username })).state).toBe('none');
    const again = await rpc(fan, 'follow', { p_username: star.username, p_follow: false });
    expect(again).toMatchObject({ state: 'none', user: { followers_count: 0 } });
  });

  it('asks a private account, which accepts or declines; only a pending request can be answered', async () => {
    const asker = await createAccount('asker');
    const other = await createAccount('other');
    const shy = await createAccount('shy', { isPrivate: true });
    expect((await rpc(asker, 'follow', { p_username: shy.username })).state).toBe('requested');
    await rpc(other, 'follow', { p_username: shy.username });
    const requests = await rpc(shy, 'follow_requests');
    expect(requests.items.map((p: { username: string }) => p.username)).toEqual([other.username, asker.username]);

    const accepted = await rpc(shy, 'respond_follow_request', { p_username: asker.username, p_accept: true });
    expect(accepted.state).toBe('accepted');
    const declined = await rpc(shy, 'respond_follow_request', { p_username: other.username, p_accept: false });
    expect(declined.state).toBe('declined');
    const none = await errorOf(rpc(shy, 'respond_follow_request', { p_username: other.username, p_accept: true }));
    expect(none).toMatchObject({ code: 'PT404', hint: 'request_not_found' });
    expect((await rpc(asker, 'get_profile', { p_username: shy.username })).viewer.following).toBe(true);
  });

  it('refuses self-follows, unknown users and anonymous callers', async () => {
    const solo = await createAccount('solo');
    expect(await errorOf(rpc(solo, 'follow', { p_username: solo.username }))).toMatchObject({
      code: 'PT400',
      hint: 'cannot_follow_self',
    });
    expect(await errorOf(rpc(solo, 'follow', { p_username: 'no_such_user_here' }))).toMatchObject({
      code: 'PT404',
      hint: 'user_not_found',
    });
    expect(await errorOf(rpc(anon, 'follow', { p_username: solo.username }))).toMatchObject({ code: '42501' });
  });

  it('accepts pending requests when the account turns public', async () => {
    const asker = await createAccount('asker');
    const shy = await createAccount('shy', { isPrivate: true });
    await rpc(asker, 'follow', { p_username: shy.username });
    await rpc(shy, 'get_profile', { p_username: shy.username });
    await as(shy, (tx) => tx`update public.profiles set is_private = false where id = ${shy.id}`);
    expect((await rpc(asker, 'get_profile', { p_username: shy.username })).viewer.following).toBe(true);
  });
});

describe.skipIf(!authIsRunning)('followers and following lists', () => {
  it("show a private account's lists to its followers only, newest first, page by page", async () => {
    const shy = await createAccount('shy', { isPrivate: true });
    const fans = [await createAccount('fan'), await createAccount('fan'), await createAccount('fan')];
    for (const fan of fans) {
      await rpc(fan, 'follow', { p_username: shy.username });
      await rpc(shy, 'respond_follow_request', { p_username: fan.username, p_accept: true });
    }
    const stranger = await createAccount('stranger');
    expect(await errorOf(rpc(stranger, 'followers', { p_username: shy.username }))).toMatchObject({
      code: 'PT403',
      hint: 'private_account',
    });
    expect(await errorOf(rpc(anon, 'following', { p_username: shy.username }))).toMatchObject({ code: 'PT403' });

    const first = await rpc(fans[0], 'followers', { p_username: shy.username, p_limit: 2 });
    expect(first.items.map((p: { username: string }) => p.username)).toEqual([fans[2].username, fans[1].username]);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await rpc(fans[0], 'followers', {
      p_username: shy.username,
      p_limit: 2,
      p_cursor: first.next_cursor,
    });
    expect(second.items.map((p: { username: string }) => p.username)).toEqual([fans[0].username]);
    expect(second.next_cursor).toBeNull();
  });

  it("never give a private account's followers away through its public followers' rows", async () => {
    const shy = await createAccount('shy', { isPrivate: true });
    const fan = await createAccount('fan');
    const stranger = await createAccount('stranger');
    await rpc(fan, 'follow', { p_username: shy.username });
    await rpc(shy, 'respond_follow_request', { p_username: fan.username, p_accept: true });

    // fan is public, so fan's following list is open to all, but "fan follows shy" belongs to shy's list too.
    for (const viewer of [anon, stranger]) {
      expect(await as(viewer, (tx) => tx`select follower_id from public.follows where followee_id = ${shy.id}`))
        .toEqual([]);
      expect((await rpc(viewer, 'following', { p_username: fan.username })).items).toEqual([]);
    }
    const insider = await as(fan, (tx) => tx`select follower_id from public.follows where followee_id = ${shy.id}`);
    expect(insider).toEqual([{ follower_id: fan.id }]);
    expect(
      (await rpc(shy, 'following', { p_username: fan.username })).items.map((p: { username: string }) => p.username),
    ).toEqual([shy.username]);
    expect((await rpc(stranger, 'get_profile', { p_username: fan.username })).following_count).toBe(1);
  });

  it('refuses a forged cursor and a limit out of range', async () => {
    const user = await createAccount('lister');
    expect(await errorOf(rpc(user, 'followers', { p_username: user.username, p_cursor: 'not-a-cursor' })))
      .toMatchObject({ code: 'PT400', hint: 'invalid_cursor' });
    expect(await errorOf(rpc(user, 'followers', { p_username: user.username, p_limit: 101 }))).toMatchObject({
      code: 'PT400',
      hint: 'invalid_limit',
    });
    expect(await errorOf(rpc(user, 'followers', { p_username: user.username, p_limit: 0 }))).toMatchObject({
      code: 'PT400',
    });
  });
});

describe.skipIf(!authIsRunning)('blocks', () => {
  it('end follows and close friendship both ways, hide each side, and can be undone', async () => {
    const ann = await createAccount('ann');
    const ben = await createAccount('ben');
    await rpc(ann, 'follow', { p_username: ben.username });
    await rpc(ben, 'follow', { p_username: ann.username });
    await rpc(ann, 'set_close_friend', { p_username: ben.username, p_close: true });

    expect(await rpc(ann, 'block', { p_username: ben.username })).toMatchObject({ blocked: true });
    expect(await rpc(ann, 'block', { p_username: ben.username, p_block: true })).toMatchObject({ blocked: true });
    expect(await errorOf(rpc(ben, 'get_profile', { p_username: ann.username }))).toMatchObject({ code: 'PT404' });
    expect(await errorOf(rpc(ann, 'get_profile', { p_username: ben.username }))).toMatchObject({ code: 'PT404' });
    expect(await errorOf(rpc(ben, 'follow', { p_username: ann.username }))).toMatchObject({ code: 'PT404' });
    expect((await rpc(ann, 'blocks')).items.map((p: { username: string }) => p.username)).toEqual([ben.username]);
    expect((await rpc(ann, 'close_friends')).items).toEqual([]);

    expect(await rpc(ann, 'block', { p_username: ben.username, p_block: false })).toMatchObject({ blocked: false });
    const seen = await rpc(ann, 'get_profile', { p_username: ben.username });
    expect(seen).toMatchObject({
      followers_count: 0,
      following_count: 0,
      viewer: { following: false, follows_you: false },
    });
  });

  it("leave banned accounts out of the blocker's list, as everywhere else", async () => {
    const ann = await createAccount('ann');
    const troll = await createAccount('troll');
    const admin = await createAccount('admin');
    await makeAdmin(admin);
    await rpc(ann, 'block', { p_username: troll.username, p_block: true });
    expect((await rpc(ann, 'blocks')).items.map((p: { username: string }) => p.username)).toEqual([troll.username]);
    await rpc(admin, 'admin_ban_user', { p_username: troll.username, p_reason: 'trolling' });
    expect((await rpc(ann, 'blocks')).items).toEqual([]);
  });
});

describe.skipIf(!authIsRunning)('blocks racing follows and close friends', () => {
  it('a block waiting on an uncommitted follow still ends it', async () => {
    const fan = await createAccount('fan');
    const star = await createAccount('star');
    const follow = heldOpen(fan, (tx) => tx`insert into public.follows (followee_id) values (${star.id})`);
    await follow.ran;
    const block = rpc(star, 'block', { p_username: fan.username, p_block: true });
    await lockWaits(1); // the block waits for the follow's transaction
    follow.release();
    await follow.done;
    expect(await block).toMatchObject({ blocked: true });
    const [left] = await asRoot`select count(*)::int as n from public.follows where follower_id = ${fan.id}`;
    expect(left.n).toBe(0);
  });

  it('a follow or close-friend entry waiting on an uncommitted block is refused', async () => {
    const fan = await createAccount('fan');
    const star = await createAccount('star');
    const block = heldOpen(star, (tx) => tx`insert into public.blocks (blocked_id) values (${fan.id})`);
    await block.ran;
    const follow = errorOf(rpc(fan, 'follow', { p_username: star.username }));
    const befriend = errorOf(rpc(fan, 'set_close_friend', { p_username: star.username, p_close: true }));
    await lockWaits(2); // both wait for the block's transaction
    block.release();
    await block.done;
    expect(await follow).toMatchObject({ code: 'PT404' });
    expect(await befriend).toMatchObject({ code: 'PT404' });
    const [left] = await asRoot`
      select (select count(*) from public.follows where follower_id = ${fan.id})::int
           + (select count(*) from public.close_friends where owner_id = ${fan.id})::int as n`;
    expect(left.n).toBe(0);
  });
});

describe.skipIf(!authIsRunning)('close friends', () => {
  it('are a private list: added, listed, toggled off; never shown to the friend', async () => {
    const owner = await createAccount('owner');
    const friend = await createAccount('friend');
    expect(await rpc(owner, 'set_close_friend', { p_username: friend.username })).toMatchObject({ close_friend: true });
    expect((await rpc(owner, 'close_friends')).items.map((p: { username: string }) => p.username)).toEqual([
      friend.username,
    ]);
    expect((await rpc(friend, 'get_profile', { p_username: owner.username })).viewer.close_friend).toBe(false);
    expect(await rpc(owner, 'set_close_friend', { p_username: friend.username })).toMatchObject({
      close_friend: false,
    });
    expect((await rpc(owner, 'close_friends')).items).toEqual([]);
  });
});

describe.skipIf(!authIsRunning)('public.report_user', () => {
  it('files one open report per reporter per user; a second is a 409', async () => {
    const reporter = await createAccount('reporter');
    const troll = await createAccount('troll');
    expect(await rpc(reporter, 'report_user', { p_username: troll.username, p_reason: 'spam' })).toMatchObject({
      target_type: 'user',
    });
    expect(await errorOf(rpc(reporter, 'report_user', { p_username: troll.username, p_reason: 'again' })))
      .toMatchObject({ code: 'PT409', hint: 'already_reported' });
    expect(await errorOf(rpc(reporter, 'report_user', { p_username: troll.username, p_reason: '' }))).toMatchObject({
      code: 'PT400',
    });
    expect(await errorOf(rpc(reporter, 'report_user', { p_username: reporter.username, p_reason: 'me' })))
      .toMatchObject({ code: 'PT400' });
  });
});
