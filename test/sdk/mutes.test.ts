// public.mutes and the mute functions through supabase-js: a mute is read, changed and ended by its muter only,
// made as oneself towards an account one may see; rpc('mute'), rpc('mutes') allowed and denied.
import { beforeAll, describe, expect, it } from 'vitest';
import { makeAdmin } from '../helpers/accounts.ts';
import { anonSdk, refusal, rootBlock, type SdkUser, sdkUser } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('mutes through supabase-js', () => {
  const u = {} as Record<string, SdkUser>;

  beforeAll(async () => {
    const labels = ['muter', 'muted', 'stranger', 'admin', 'blocker'];
    (await Promise.all(labels.map((label) => sdkUser(label)))).forEach((user, i) => (u[labels[i]] = user));
    await makeAdmin(u.admin);
    await rootBlock(u.blocker, u.muter);
  });

  it('insert and select: the muter mutes a visible account and alone reads it; not across a block, not as another', async () => {
    expect((await u.muter.sdk.from('mutes').insert({ muted_id: u.muted.id, notifications_only: true })).error)
      .toBeNull();
    for (const name of ['muter', 'muted', 'stranger', 'admin']) {
      const { data, error } = await u[name].sdk.from('mutes').select('muted_id, notifications_only').eq(
        'muted_id',
        u.muted.id,
      );
      expect([name, error, data]).toEqual([
        name,
        null,
        name === 'muter' ? [{ muted_id: u.muted.id, notifications_only: true }] : [],
      ]);
    }
    expect(refusal(await u.muter.sdk.from('mutes').insert({ muted_id: u.blocker.id }))).toEqual({
      status: 403,
      code: '42501',
      hint: null,
    });
    // muter_id is not a column a client may set: muting on another's behalf is refused outright.
    expect(refusal(await u.stranger.sdk.from('mutes').insert({ muter_id: u.muter.id, muted_id: u.admin.id } as never)))
      .toEqual({ status: 403, code: '42501', hint: null });
    expect(refusal(await anonSdk().from('mutes').select('muted_id'))).toEqual({
      status: 401,
      code: 'PT401',
      hint: 'unauthorized',
    });
  });

  it('update and delete: only the muter changes or ends a mute', async () => {
    const target = await sdkUser('target');
    await u.muter.sdk.from('mutes').insert({ muted_id: target.id });
    const others = await u.stranger.sdk.from('mutes').delete().eq('muted_id', target.id).select();
    expect(others.data).toEqual([]);
    const changed = await u.muter.sdk.from('mutes').update({ notifications_only: true }).eq('muted_id', target.id)
      .select('notifications_only');
    expect(changed.data).toEqual([{ notifications_only: true }]);
    const ended = await u.muter.sdk.from('mutes').delete().eq('muted_id', target.id).select('muted_id');
    expect(ended.data).toEqual([{ muted_id: target.id }]);
  });

  it("rpc('mute'): one mutes a visible account for a while; not oneself, not across a block, not anonymously", async () => {
    const quiet = await sdkUser('quiet');
    const muted = await u.stranger.sdk.rpc('mute', { p_username: quiet.username, p_mute: true, p_duration: 600 });
    expect(muted.error).toBeNull();
    expect(muted.data).toMatchObject({ muted: true, notifications_only: false, user: { username: quiet.username } });
    expect(refusal(await u.stranger.sdk.rpc('mute', { p_username: u.stranger.username }))).toEqual({
      status: 400,
      code: 'PT400',
      hint: 'cannot_mute_self',
    });
    expect(refusal(await u.muter.sdk.rpc('mute', { p_username: u.blocker.username }))).toEqual({
      status: 404,
      code: 'PT404',
      hint: 'user_not_found',
    });
    expect(refusal(await anonSdk().rpc('mute', { p_username: quiet.username }))).toEqual({
      status: 401,
      code: 'PT401',
      hint: 'unauthorized',
    });
  });

  it("rpc('mutes'): the muter lists theirs, the muted account sees none; anon is refused", async () => {
    const list = await u.muter.sdk.rpc('mutes');
    expect(list.error).toBeNull();
    expect((list.data as { items: { username: string }[] }).items.map((m) => m.username)).toContain(u.muted.username);
    expect((await u.muted.sdk.rpc('mutes')).data).toMatchObject({ items: [] });
    expect(refusal(await anonSdk().rpc('mutes'))).toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
  });
});
