// public.blocks through supabase-js: a block is read by its blocker (and admins) only, made as oneself towards
// an account one may see, and lifted by its blocker.
import { beforeAll, describe, expect, it } from 'vitest';
import { banDirectly, makeAdmin } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { anonSdk, refusal, rootBlock, rootCloseFriend, rootFollow, type SdkUser, sdkUser } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('blocks through supabase-js', () => {
  const u = {} as Record<string, SdkUser>;

  beforeAll(async () => {
    const labels = ['blocker', 'target', 'stranger', 'admin', 'banned'];
    (await Promise.all(labels.map((label) => sdkUser(label)))).forEach((user, i) => (u[labels[i]] = user));
    await makeAdmin(u.admin);
    await rootBlock(u.blocker, u.target);
    await rootBlock(u.banned, u.target);
    await banDirectly(u.banned);
  });

  it('select: the blocker and admins read a block; the blocked account, strangers and its banned blocker do not', async () => {
    const seen: Record<string, number> = {};
    for (const name of ['blocker', 'target', 'stranger', 'banned', 'admin']) {
      const { data, error } = await u[name].sdk.from('blocks').select('blocker_id').eq('blocked_id', u.target.id);
      expect(error).toBeNull();
      seen[name] = data!.length;
    }
    expect(seen).toEqual({ blocker: 1, target: 0, stranger: 0, banned: 0, admin: 2 });
    const anon = await anonSdk().from('blocks').select('blocker_id');
    expect(refusal(anon)).toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' }); // anon is granted nothing here
  });

  it('insert: a block is made as oneself and ends the follows and close-friend entries both ways', async () => {
    const [a, b] = await Promise.all([sdkUser('a'), sdkUser('b')]);
    await rootFollow(a, b);
    await rootFollow(b, a);
    await rootCloseFriend(b, a);
    const { data, error } = await a.sdk.from('blocks').insert({ blocked_id: b.id }).select().single();
    expect(error).toBeNull();
    expect(data).toMatchObject({ blocker_id: a.id, blocked_id: b.id });
    const left = await asRoot`
      select 1 from public.follows where ${a.id} in (follower_id, followee_id) and ${b.id} in (follower_id, followee_id)
      union all select 1 from public.close_friends where owner_id = ${b.id} and friend_id = ${a.id}`;
    expect(left).toEqual([]);
    // b may no longer see a, so cannot block back: refused as an unknown account would be.
    const back = await b.sdk.from('blocks').insert({ blocked_id: a.id });
    expect(refusal(back)).toEqual({ status: 403, code: '42501', hint: null });
  });

  it("insert: not in someone else's name, not oneself, not banned, not anonymously", async () => {
    const forged = await u.stranger.sdk.from('blocks').insert({ blocker_id: u.target.id, blocked_id: u.stranger.id });
    expect(refusal(forged)).toEqual({ status: 403, code: '42501', hint: null });
    const self = await u.stranger.sdk.from('blocks').insert({ blocked_id: u.stranger.id });
    expect(refusal(self)).toEqual({ status: 400, code: 'PT400', hint: 'cannot_block_self' });
    const banned = await u.banned.sdk.from('blocks').insert({ blocked_id: u.stranger.id });
    expect(refusal(banned)).toEqual({ status: 403, code: '42501', hint: null });
    const anon = await anonSdk().from('blocks').insert({ blocked_id: u.stranger.id });
    expect(refusal(anon)).toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
    expect(await asRoot`select 1 from public.blocks where ${u.stranger.id} in (blocker_id, blocked_id)`).toEqual([]);
  });

  it('delete: the blocker unblocks; the blocked account, an admin and a banned blocker delete 0 rows', async () => {
    for (const name of ['target', 'admin', 'stranger']) {
      const { data, error } = await u[name].sdk.from('blocks').delete().eq('blocker_id', u.blocker.id).select();
      expect([name, error, data]).toEqual([name, null, []]);
    }
    const banned = await u.banned.sdk.from('blocks').delete().eq('blocker_id', u.banned.id).select();
    expect(banned.data).toEqual([]);
    const { data } = await u.blocker.sdk.from('blocks').delete().eq('blocked_id', u.target.id).select('blocked_id');
    expect(data).toEqual([{ blocked_id: u.target.id }]);
    const left = await asRoot`select blocker_id from public.blocks where blocked_id = ${u.target.id}`;
    expect(left.map((row) => row.blocker_id)).toEqual([u.banned.id]);
  });
});
