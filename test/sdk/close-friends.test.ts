// public.close_friends through supabase-js: a one-sided list read by its owner (and admins) alone, whose members
// are neither asked nor told; entries are made as oneself towards a visible account and removed by the owner.
import { beforeAll, describe, expect, it } from 'vitest';
import { banDirectly, makeAdmin } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { anonSdk, refusal, rootBlock, rootCloseFriend, type Sdk, type SdkUser, sdkUser } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('close friends through supabase-js', () => {
  const u = {} as Record<string, SdkUser>;
  let names: Record<string, string>;

  beforeAll(async () => {
    const labels = ['owner', 'friend', 'stranger', 'blocker', 'blocked', 'admin', 'banned', 'bannedOwner'];
    (await Promise.all(labels.map((label) => sdkUser(label)))).forEach((user, i) => (u[labels[i]] = user));
    names = Object.fromEntries(labels.map((label) => [u[label].id, label]));
    await makeAdmin(u.admin);
    await rootCloseFriend(u.owner, u.friend);
    await rootCloseFriend(u.owner, u.banned);
    await rootCloseFriend(u.bannedOwner, u.friend);
    await rootBlock(u.blocker, u.owner);
    await rootBlock(u.owner, u.blocked);
    await banDirectly(u.banned);
    await banDirectly(u.bannedOwner);
  });

  async function list(client: Sdk, owner: SdkUser): Promise<string[]> {
    const { data, error } = await client.from('close_friends').select('friend_id').eq('owner_id', owner.id);
    expect(error).toBeNull();
    return data!.map((row) => names[row.friend_id]).sort();
  }

  it('select: the owner and admins read the list; its members, strangers and anon read nothing', async () => {
    const seen: Record<string, string[]> = { anon: await list(anonSdk(), u.owner) };
    for (const name of ['owner', 'friend', 'stranger', 'blocker', 'admin']) {
      seen[name] = await list(u[name].sdk, u.owner);
    }
    expect(seen).toEqual({
      anon: [], // anon may ask (200), and no row is ever shown to it
      owner: ['friend'], // not the banned member while the ban lasts
      friend: [],
      stranger: [],
      blocker: [],
      admin: ['banned', 'friend'],
    });
    expect(await list(u.bannedOwner.sdk, u.bannedOwner)).toEqual([]); // its live session reads nothing
  });

  it('insert: the owner adds a visible account as themself; not for another, across a block, banned or anonymously', async () => {
    const { data, error } = await u.owner.sdk.from('close_friends').insert({ friend_id: u.stranger.id }).select()
      .single();
    expect(error).toBeNull();
    expect(data).toMatchObject({ owner_id: u.owner.id, friend_id: u.stranger.id });

    const forged = await u.stranger.sdk.from('close_friends').insert({
      owner_id: u.friend.id,
      friend_id: u.stranger.id,
    });
    expect(refusal(forged)).toEqual({ status: 403, code: '42501', hint: null });
    for (const [name, friend] of [['blocker', u.owner], ['owner', u.blocked], ['bannedOwner', u.stranger]] as const) {
      const result = await u[name].sdk.from('close_friends').insert({ friend_id: friend.id });
      expect([name, refusal(result)]).toEqual([name, { status: 403, code: '42501', hint: null }]);
    }
    const anon = await anonSdk().from('close_friends').insert({ friend_id: u.stranger.id });
    expect(refusal(anon)).toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
    const self = await u.stranger.sdk.from('close_friends').insert({ friend_id: u.stranger.id });
    expect(refusal(self)).toEqual({ status: 400, code: 'PT400', hint: 'cannot_befriend_self' });
  });

  it('delete: the owner removes a member; the member, an admin and a banned owner delete 0 rows', async () => {
    for (const name of ['friend', 'admin']) {
      const { data, error } = await u[name].sdk.from('close_friends').delete().eq('owner_id', u.owner.id).eq(
        'friend_id',
        u.friend.id,
      ).select();
      expect([name, error, data]).toEqual([name, null, []]);
    }
    const banned = await u.bannedOwner.sdk.from('close_friends').delete().eq('owner_id', u.bannedOwner.id).select();
    expect(banned.data).toEqual([]);
    const { data } = await u.owner.sdk.from('close_friends').delete().eq('friend_id', u.friend.id).select('friend_id');
    expect(data).toEqual([{ friend_id: u.friend.id }]);
    const left = await asRoot`select owner_id from public.close_friends where friend_id = ${u.friend.id}`;
    expect(left.map((row) => row.owner_id)).toEqual([u.bannedOwner.id]);
  });
});
