// rpc() of close friends, blocks and reports of users: set_close_friend, close_friends, block, blocks,
// report_user. Each: one call allowed, one denied.
import { beforeAll, describe, expect, it } from 'vitest';
import { anonSdk, bannedSdkUser, refusal, rootBlock, rootCloseFriend, type SdkUser, sdkUser } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('rpc: close friends, blocks, reports of users', () => {
  let owner: SdkUser;
  let friend: SdkUser;
  let blocker: SdkUser; // blocks owner
  let banned: SdkUser;

  beforeAll(async () => {
    [owner, friend, blocker] = await Promise.all(['owner', 'friend', 'blocker'].map((label) => sdkUser(label)));
    banned = await bannedSdkUser('banned');
    await rootBlock(blocker, owner);
  });

  const usernames = (page: unknown) => (page as { items: { username: string }[] }).items.map((item) => item.username);

  it('set_close_friend: one adds a visible account; not across a block (404), not oneself (400)', async () => {
    const other = await sdkUser('other');
    const added = await owner.sdk.rpc('set_close_friend', { p_username: other.username, p_close: true });
    expect(added.error).toBeNull();
    expect(added.data).toMatchObject({
      close_friend: true,
      user: { username: other.username, viewer: { close_friend: true } },
    });
    expect(refusal(await owner.sdk.rpc('set_close_friend', { p_username: blocker.username })))
      .toEqual({ status: 404, code: 'PT404', hint: 'user_not_found' });
    expect(refusal(await blocker.sdk.rpc('set_close_friend', { p_username: owner.username })))
      .toEqual({ status: 404, code: 'PT404', hint: 'user_not_found' });
    expect(refusal(await owner.sdk.rpc('set_close_friend', { p_username: owner.username })))
      .toEqual({ status: 400, code: 'PT400', hint: 'cannot_befriend_self' });
  });

  it('close_friends: the owner lists theirs (the member is not told); anon is refused, a banned session unauthorized', async () => {
    await rootCloseFriend(owner, friend);
    const list = await owner.sdk.rpc('close_friends');
    expect(list.error).toBeNull();
    expect(usernames(list.data)).toContain(friend.username);
    expect(usernames((await friend.sdk.rpc('close_friends')).data)).toEqual([]);
    expect(refusal(await anonSdk().rpc('close_friends'))).toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
    expect(refusal(await banned.sdk.rpc('close_friends'))).toEqual({
      status: 401,
      code: 'PT401',
      hint: 'unauthorized',
    });
  });

  it('block: blocks, again as a no-op, and unblocks; not oneself, not someone who blocked you, not anonymously', async () => {
    const [a, b] = await Promise.all([sdkUser('a'), sdkUser('b')]);
    expect((await a.sdk.rpc('block', { p_username: b.username })).data).toMatchObject({
      blocked: true,
      user: { id: b.id },
    });
    expect((await a.sdk.rpc('block', { p_username: b.username, p_block: true })).data).toMatchObject({ blocked: true });
    // b may not see a any more: blocking back is refused as an unknown account.
    expect(refusal(await b.sdk.rpc('block', { p_username: a.username }))).toEqual({
      status: 404,
      code: 'PT404',
      hint: 'user_not_found',
    });
    expect((await a.sdk.rpc('block', { p_username: b.username })).data).toMatchObject({ blocked: false }); // toggled off
    expect(refusal(await a.sdk.rpc('block', { p_username: a.username }))).toEqual({
      status: 400,
      code: 'PT400',
      hint: 'cannot_block_self',
    });
    expect(refusal(await anonSdk().rpc('block', { p_username: a.username }))).toEqual({
      status: 401,
      code: 'PT401',
      hint: 'unauthorized',
    });
  });

  it('blocks: the blocker lists whom they block, the blocked does not see it; anon refused, banned unauthorized', async () => {
    const list = await blocker.sdk.rpc('blocks');
    expect(list.error).toBeNull();
    expect(usernames(list.data)).toEqual([owner.username]);
    expect(usernames((await owner.sdk.rpc('blocks')).data)).toEqual([]);
    expect(refusal(await anonSdk().rpc('blocks'))).toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
    expect(refusal(await banned.sdk.rpc('blocks'))).toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
  });

  it('report_user: once per reporter (409 after), never oneself (400), never across a block (404)', async () => {
    const reporter = await sdkUser('reporter');
    const filed = await reporter.sdk.rpc('report_user', { p_username: friend.username, p_reason: 'impersonation' });
    expect(filed.error).toBeNull();
    expect(filed.data).toMatchObject({ target_type: 'user' });
    expect(refusal(await reporter.sdk.rpc('report_user', { p_username: friend.username, p_reason: 'again' })))
      .toEqual({ status: 409, code: 'PT409', hint: 'already_reported' });
    expect(refusal(await reporter.sdk.rpc('report_user', { p_username: reporter.username, p_reason: 'me' })))
      .toEqual({ status: 400, code: 'PT400', hint: 'invalid_reason' });
    expect(refusal(await blocker.sdk.rpc('report_user', { p_username: owner.username, p_reason: 'x' })))
      .toEqual({ status: 404, code: 'PT404', hint: 'user_not_found' });
    expect(refusal(await anonSdk().rpc('report_user', { p_username: owner.username, p_reason: 'x' })))
      .toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
  });
});
