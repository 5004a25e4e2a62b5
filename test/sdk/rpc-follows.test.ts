// rpc() of the profile and follow functions: get_profile, follow, respond_follow_request, remove_follower,
// followers, following, follow_requests. Each: one call allowed, one denied.
import { beforeAll, describe, expect, it } from 'vitest';
import { banDirectly, makeAdmin } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { anonSdk, refusal, rootBlock, rootFollow, type SdkUser, sdkUser } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('rpc: profiles and follows', () => {
  let pub: SdkUser;
  let priv: SdkUser;
  let fan: SdkUser; // follows pub and priv
  let requester: SdkUser; // asked to follow priv
  let stranger: SdkUser;
  let blocker: SdkUser; // blocks pub
  let admin: SdkUser;
  let banned: SdkUser;

  beforeAll(async () => {
    [pub, fan, requester, stranger, blocker, admin, banned] = await Promise.all(
      ['pub', 'fan', 'requester', 'stranger', 'blocker', 'admin', 'banned'].map((label) => sdkUser(label)),
    );
    priv = await sdkUser('priv', { isPrivate: true });
    await makeAdmin(admin);
    await rootFollow(fan, pub);
    await rootFollow(fan, priv);
    await asRoot`insert into public.follows (follower_id, followee_id) values (${requester.id}, ${priv.id})`;
    await rootBlock(blocker, pub);
    await banDirectly(banned);
  });

  const usernames = (page: unknown) => (page as { items: { username: string }[] }).items.map((item) => item.username);

  it('get_profile: a visible profile for anyone; 404 across a block and for a banned account (but to admins)', async () => {
    const anon = await anonSdk().rpc('get_profile', { p_username: pub.username });
    expect(anon.error).toBeNull();
    expect(anon.data).toMatchObject({ username: pub.username, is_private: false, followers_count: 1, viewer: null });
    const byFan = await fan.sdk.rpc('get_profile', { p_username: pub.username });
    expect(byFan.data).toMatchObject({ viewer: { following: true, follows_you: false } });

    const acrossBlock = await blocker.sdk.rpc('get_profile', { p_username: pub.username });
    expect(refusal(acrossBlock)).toEqual({ status: 404, code: 'PT404', hint: 'user_not_found' });
    const bannedOne = await stranger.sdk.rpc('get_profile', { p_username: banned.username });
    expect(refusal(bannedOne)).toEqual({ status: 404, code: 'PT404', hint: 'user_not_found' });
    const byAdmin = await admin.sdk.rpc('get_profile', { p_username: banned.username });
    expect(byAdmin.data).toMatchObject({ username: banned.username, banned: true });
  });

  it('follow: a public account at once, a private one by request; not oneself, not across a block, not anonymously', async () => {
    const follower = await sdkUser('follower');
    const follows = await follower.sdk.rpc('follow', { p_username: pub.username });
    expect(follows.error).toBeNull();
    expect(follows.data).toMatchObject({ state: 'following', user: { username: pub.username } });
    expect((await follower.sdk.rpc('follow', { p_username: priv.username, p_follow: true })).data).toMatchObject({
      state: 'requested',
    });

    // pub may not see the account that blocked them: following it is refused as an unknown account.
    expect(refusal(await pub.sdk.rpc('follow', { p_username: blocker.username }))).toEqual({
      status: 404,
      code: 'PT404',
      hint: 'user_not_found',
    });
    expect(refusal(await blocker.sdk.rpc('follow', { p_username: pub.username }))).toEqual({
      status: 404,
      code: 'PT404',
      hint: 'user_not_found',
    });
    expect(refusal(await follower.sdk.rpc('follow', { p_username: follower.username }))).toEqual({
      status: 400,
      code: 'PT400',
      hint: 'cannot_follow_self',
    });
    expect(refusal(await anonSdk().rpc('follow', { p_username: pub.username }))).toEqual({
      status: 401,
      code: 'PT401',
      hint: 'unauthorized',
    });
  });

  it('respond_follow_request: the followee accepts; nobody else answers the request (404 request_not_found)', async () => {
    const asker = await sdkUser('asker');
    await asRoot`insert into public.follows (follower_id, followee_id) values (${asker.id}, ${priv.id})`;
    const byAsker = await asker.sdk.rpc('respond_follow_request', { p_username: priv.username, p_accept: true });
    expect(refusal(byAsker)).toEqual({ status: 404, code: 'PT404', hint: 'request_not_found' });
    const byStranger = await stranger.sdk.rpc('respond_follow_request', { p_username: asker.username, p_accept: true });
    expect(refusal(byStranger)).toEqual({ status: 404, code: 'PT404', hint: 'request_not_found' });
    const accepted = await priv.sdk.rpc('respond_follow_request', { p_username: asker.username, p_accept: true });
    expect(accepted.error).toBeNull();
    expect(accepted.data).toMatchObject({ state: 'accepted', user: { username: asker.username } });
  });

  it("remove_follower: one removes one's own follower; someone who does not follow is 404 not_a_follower", async () => {
    const leaving = await sdkUser('leaving');
    await rootFollow(leaving, pub);
    const removed = await pub.sdk.rpc('remove_follower', { p_username: leaving.username });
    expect(removed.error).toBeNull();
    expect(removed.data).toMatchObject({ removed: true, user: { username: leaving.username } });
    const notFollower = await pub.sdk.rpc('remove_follower', { p_username: stranger.username });
    expect(refusal(notFollower)).toEqual({ status: 404, code: 'PT404', hint: 'not_a_follower' });
  });

  it("followers: a public account's for anyone; a private one's are 403 private_account, across a block 404", async () => {
    const page = await anonSdk().rpc('followers', { p_username: pub.username });
    expect(page.error).toBeNull();
    expect(usernames(page.data)).toContain(fan.username);
    expect(usernames((await fan.sdk.rpc('followers', { p_username: priv.username })).data)).toContain(fan.username);
    expect(refusal(await stranger.sdk.rpc('followers', { p_username: priv.username }))).toEqual({
      status: 403,
      code: 'PT403',
      hint: 'private_account',
    });
    expect(refusal(await requester.sdk.rpc('followers', { p_username: priv.username }))).toEqual({
      status: 403,
      code: 'PT403',
      hint: 'private_account',
    });
    expect(refusal(await blocker.sdk.rpc('followers', { p_username: pub.username }))).toEqual({
      status: 404,
      code: 'PT404',
      hint: 'user_not_found',
    });
  });

  it("following: a public account's for anyone; a private one's 403 to non-followers, admins excepted", async () => {
    // "fan follows priv" is in priv's followers list too, which anon may not see: left out.
    expect(usernames((await anonSdk().rpc('following', { p_username: fan.username })).data)).toEqual([pub.username]);
    expect(usernames((await fan.sdk.rpc('following', { p_username: fan.username })).data).sort()).toEqual(
      [priv.username, pub.username].sort(),
    );
    expect(refusal(await anonSdk().rpc('following', { p_username: priv.username }))).toEqual({
      status: 403,
      code: 'PT403',
      hint: 'private_account',
    });
    const byAdmin = await admin.sdk.rpc('following', { p_username: priv.username });
    expect([byAdmin.error, usernames(byAdmin.data)]).toEqual([null, []]);
  });

  it('follow_requests: the followee lists the requests made to them; anon is refused, a banned session unauthorized', async () => {
    const own = await priv.sdk.rpc('follow_requests');
    expect(own.error).toBeNull();
    expect(usernames(own.data)).toContain(requester.username);
    expect(usernames((await requester.sdk.rpc('follow_requests')).data)).toEqual([]); // its own request is not to it
    expect(refusal(await anonSdk().rpc('follow_requests'))).toEqual({
      status: 401,
      code: 'PT401',
      hint: 'unauthorized',
    });
    expect(refusal(await banned.sdk.rpc('follow_requests'))).toEqual({
      status: 401,
      code: 'PT401',
      hint: 'unauthorized',
    });
  });
});
