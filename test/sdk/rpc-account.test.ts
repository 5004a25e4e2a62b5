// rpc() of the caller's own account and lists: me, update_profile, reset_profile_picture, check_registration,
// feed, notifications, read_notifications, search. Each: one call allowed, one denied.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  anonSdk,
  bannedSdkUser,
  refusal,
  rootBlock,
  rootFollow,
  rootPost,
  type SdkUser,
  sdkUser,
} from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

const unauthorized = { status: 401, code: 'PT401', hint: 'unauthorized' };
const anonRefused = { status: 401, code: 'PT401', hint: 'unauthorized' };

describe.skipIf(!authIsRunning)("rpc: the caller's account, feed, notifications and search", () => {
  let user: SdkUser;
  let followed: SdkUser; // user follows them
  let blocker: SdkUser; // blocks user
  let banned: SdkUser;

  beforeAll(async () => {
    [user, followed, blocker] = await Promise.all([sdkUser('user'), sdkUser('followed'), sdkUser('blocker')]);
    banned = await bannedSdkUser('banned');
    await rootFollow(user, followed);
    await rootBlock(blocker, user);
  });

  type Item = Record<string, unknown>;
  const items = (page: unknown) => (page as { items: Item[] }).items;

  it("me: the caller's profile with their e-mail; anon is refused, a banned session unauthorized", async () => {
    const me = await user.sdk.rpc('me');
    expect(me.error).toBeNull();
    expect(me.data).toMatchObject({ id: user.id, username: user.username, email: user.email, following_count: 1 });
    expect(refusal(await anonSdk().rpc('me'))).toEqual(anonRefused);
    expect(refusal(await banned.sdk.rpc('me'))).toEqual(unauthorized);
  });

  it('update_profile: the caller edits theirs; a reserved name, an unknown zone or key are 400, a taken name 409', async () => {
    const editor = await sdkUser('editor');
    const edited = await editor.sdk.rpc('update_profile', { p_changes: { bio: 'hello', time_zone: 'Europe/Paris' } });
    expect(edited.error).toBeNull();
    expect(edited.data).toMatchObject({ bio: 'hello', time_zone: 'Europe/Paris', email: editor.email });
    for (
      const [changes, hint] of [
        [{ username: 'support' }, 'username_reserved'],
        [{ time_zone: 'XYZ-167' }, 'invalid_time_zone'],
        [{ banned: false }, 'invalid_changes'],
      ] as const
    ) {
      expect([hint, refusal(await editor.sdk.rpc('update_profile', { p_changes: changes }))]).toEqual([hint, {
        status: 400,
        code: 'PT400',
        hint,
      }]);
    }
    expect(refusal(await editor.sdk.rpc('update_profile', { p_changes: { username: user.username } })))
      .toEqual({ status: 409, code: 'PT409', hint: 'username_taken' });
    expect(refusal(await banned.sdk.rpc('update_profile', { p_changes: { bio: 'x' } }))).toEqual(unauthorized);
  });

  it('reset_profile_picture: back to the default avatar; anon is refused', async () => {
    const owner = await sdkUser('avatar');
    await owner.sdk.rpc('update_profile', { p_changes: { avatar_url: `${owner.id}/avatar.png` } });
    const reset = await owner.sdk.rpc('reset_profile_picture');
    expect(reset.error).toBeNull();
    expect(reset.data).toMatchObject({ avatar_url: null });
    expect(refusal(await anonSdk().rpc('reset_profile_picture'))).toEqual(anonRefused);
  });

  it('check_registration: anyone learns a username is free; a taken one is 409, a reserved one 400', async () => {
    const free = `free_${Date.now().toString(36)}`;
    const checked = await anonSdk().rpc('check_registration', { p_username: free, p_email: 'x@example.test' });
    expect([checked.error, checked.data]).toEqual([null, { username: free, available: true }]);
    expect(refusal(await anonSdk().rpc('check_registration', { p_username: user.username, p_email: 'x@example.test' })))
      .toEqual({ status: 409, code: 'PT409', hint: 'username_taken' });
    expect(refusal(await anonSdk().rpc('check_registration', { p_username: 'feed', p_email: 'x@example.test' })))
      .toEqual({ status: 400, code: 'PT400', hint: 'username_reserved' });
  });

  it('feed: the visible posts of the accounts one follows; anon is refused, a banned session unauthorized', async () => {
    const open = await rootPost(followed, 'public', 'for everyone');
    const secret = await rootPost(followed, 'private', 'for me alone');
    const feed = await user.sdk.rpc('feed', { p_limit: 100 });
    expect(feed.error).toBeNull();
    const ids = items(feed.data).map((item) => item.id);
    expect(ids).toContain(open);
    expect(ids).not.toContain(secret);
    expect(refusal(await anonSdk().rpc('feed'))).toEqual(anonRefused);
    expect(refusal(await banned.sdk.rpc('feed'))).toEqual(unauthorized);
  });

  it("notifications and read_notifications: one reads and marks one's own; another's notification is 404", async () => {
    const fan = await sdkUser('fan');
    await fan.sdk.rpc('follow', { p_username: user.username });
    const list = await user.sdk.rpc('notifications', { p_unread: true });
    expect(list.error).toBeNull();
    const mine = items(list.data).find((item) => (item.actor as Item).id === fan.id);
    expect(mine).toMatchObject({ kind: 'follow', read_at: null });
    expect(refusal(await anonSdk().rpc('notifications'))).toEqual(anonRefused);
    expect(refusal(await banned.sdk.rpc('notifications'))).toEqual(unauthorized);

    expect(refusal(await fan.sdk.rpc('read_notifications', { p_until: mine!.id as string })))
      .toEqual({ status: 404, code: 'PT404', hint: 'notification_not_found' });
    const read = await user.sdk.rpc('read_notifications', { p_until: mine!.id as string });
    expect(read.error).toBeNull();
    expect(read.data).toMatchObject({ marked: expect.any(Number), unread_notifications: 0 });
    expect(refusal(await anonSdk().rpc('read_notifications'))).toEqual(anonRefused);
  });

  it('search: finds what the caller may see (not across a block); too short a text is 400', async () => {
    const found = await anonSdk().rpc('search', { p_q: user.username, p_type: 'users' });
    expect(found.error).toBeNull();
    expect(items(found.data).map((item) => item.id)).toContain(user.id);
    const byBlocker = await blocker.sdk.rpc('search', { p_q: user.username, p_type: 'users' });
    // Other accounts may share the prefix (user_…1 is a prefix of user_…12): what counts is that the blocked one is absent.
    expect(byBlocker.error).toBeNull();
    expect(items(byBlocker.data).map((item) => item.id)).not.toContain(user.id);
    expect(refusal(await anonSdk().rpc('search', { p_q: 'a', p_type: 'users' }))).toEqual({
      status: 400,
      code: 'PT400',
      hint: 'search_too_short',
    });
    expect(refusal(await anonSdk().rpc('search', { p_q: 'abc', p_type: 'comments' }))).toEqual({
      status: 400,
      code: 'PT400',
      hint: 'invalid_search_type',
    });
  });
});
