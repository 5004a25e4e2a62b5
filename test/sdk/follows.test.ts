// public.follows through supabase-js: a follow row is read by its parties and by whoever may see both accounts'
// lists; one follows as oneself (the database decides the status), the followee accepts a request, and
// either party ends a follow.
import { beforeAll, describe, expect, it } from 'vitest';
import { banDirectly, makeAdmin } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { anonSdk, refusal, rootBlock, rootFollow, type Sdk, type SdkUser, sdkUser } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('follows through supabase-js', () => {
  const u = {} as Record<string, SdkUser>;
  let names: Record<string, string>;

  beforeAll(async () => {
    const labels = ['pub', 'fan', 'privFan', 'requester', 'stranger', 'blocker', 'blocked', 'admin', 'banned'];
    const made = await Promise.all([
      ...labels.map((label) => sdkUser(label)),
      sdkUser('priv', { isPrivate: true }),
      sdkUser('bannedPriv', { isPrivate: true }),
    ]);
    labels.forEach((label, i) => (u[label] = made[i]));
    [u.priv, u.bannedPriv] = made.slice(labels.length);
    names = Object.fromEntries(Object.entries(u).map(([label, user]) => [user.id, label]));
    await makeAdmin(u.admin);
    await rootFollow(u.fan, u.pub);
    await rootFollow(u.banned, u.pub);
    await rootFollow(u.priv, u.pub); // in a private account's following list
    await rootFollow(u.privFan, u.priv);
    for (const followee of [u.priv, u.bannedPriv]) {
      await asRoot`insert into public.follows (follower_id, followee_id) values (${u.requester.id}, ${followee.id})`; // pending
    }
    await rootBlock(u.blocker, u.pub);
    await rootBlock(u.pub, u.blocked);
    await banDirectly(u.banned);
    await banDirectly(u.bannedPriv);
  });

  async function followersOf(client: Sdk, followee: SdkUser): Promise<string[]> {
    const { data, error } = await client.from('follows').select('follower_id').eq('followee_id', followee.id);
    expect(error).toBeNull();
    return data!.map((row) => names[row.follower_id]).sort();
  }

  async function readers(followee: SdkUser): Promise<Record<string, string[]>> {
    const seen: Record<string, string[]> = { anon: await followersOf(anonSdk(), followee) };
    for (
      const name of ['pub', 'priv', 'fan', 'privFan', 'requester', 'stranger', 'blocker', 'blocked', 'banned', 'admin']
    ) {
      seen[name] = await followersOf(u[name].sdk, followee);
    }
    return seen;
  }

  it("select: a public account's follows, less the private follower's (its list is for its followers) and the banned one's", async () => {
    expect(await readers(u.pub)).toEqual({
      anon: ['fan'],
      stranger: ['fan'],
      fan: ['fan'],
      requester: ['fan'],
      banned: ['fan'],
      pub: ['fan', 'priv'], // a party reads its rows
      priv: ['fan', 'priv'],
      privFan: ['fan', 'priv'], // follows priv, so may see priv's lists
      blocker: [],
      blocked: [],
      admin: ['banned', 'fan', 'priv'],
    });
  });

  it("select: a private account's follows are for its followers; its requests for the parties", async () => {
    expect(await readers(u.priv)).toEqual({
      anon: [],
      stranger: [],
      fan: [],
      blocker: [],
      blocked: [],
      banned: [],
      pub: [],
      requester: ['requester'], // its own pending request
      privFan: ['privFan'], // an accepted follower sees the accepted follows, not the requests
      priv: ['privFan', 'requester'],
      admin: ['privFan', 'requester'],
    });
  });

  it("insert: one follows as oneself; the status is the database's: accepted for a public account, pending for a private one", async () => {
    const follows = await u.stranger.sdk.from('follows').insert({ followee_id: u.pub.id }).select().single();
    expect(follows.error).toBeNull();
    expect(follows.data).toMatchObject({ follower_id: u.stranger.id, followee_id: u.pub.id, status: 'accepted' });
    const asks = await u.stranger.sdk.from('follows').insert({ followee_id: u.priv.id }).select('status').single();
    expect(asks.data).toEqual({ status: 'pending' });

    const forgedStatus = await u.fan.sdk.from('follows').insert({ followee_id: u.priv.id, status: 'accepted' });
    expect(refusal(forgedStatus)).toEqual({ status: 403, code: '42501', hint: null });
    const forgedFollower = await u.fan.sdk.from('follows').insert({
      follower_id: u.stranger.id,
      followee_id: u.privFan.id,
    });
    expect(refusal(forgedFollower)).toEqual({ status: 403, code: '42501', hint: null });
    const self = await u.fan.sdk.from('follows').insert({ followee_id: u.fan.id });
    expect(refusal(self)).toEqual({ status: 400, code: 'PT400', hint: 'cannot_follow_self' });
  });

  it('insert: no follow across a block (either way), by the banned, or anonymously', async () => {
    for (const name of ['blocker', 'blocked', 'banned']) {
      const result = await u[name].sdk.from('follows').insert({ followee_id: u.pub.id });
      expect([name, refusal(result)]).toEqual([name, { status: 403, code: '42501', hint: null }]);
      expect(result.error?.message).toBe('new row violates row-level security policy for table "follows"');
    }
    const anon = await anonSdk().from('follows').insert({ followee_id: u.pub.id });
    expect(refusal(anon)).toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
    const banned = await u.stranger.sdk.from('follows').insert({ followee_id: u.bannedPriv.id });
    expect(refusal(banned)).toEqual({ status: 403, code: '42501', hint: null }); // a banned account is invisible
  });

  it('update: the followee accepts a pending request; the requester, others, an admin and a banned followee change 0 rows', async () => {
    const request = (client: Sdk, followee: SdkUser) =>
      client.from('follows').update({ status: 'accepted' }).eq('follower_id', u.requester.id).eq(
        'followee_id',
        followee.id,
      ).select('status');
    for (const name of ['requester', 'stranger', 'admin', 'privFan']) {
      const { data, error } = await request(u[name].sdk, u.priv);
      expect([name, error, data]).toEqual([name, null, []]);
    }
    expect((await request(u.bannedPriv.sdk, u.bannedPriv)).data).toEqual([]);
    const moved = await u.priv.sdk.from('follows').update({ follower_id: u.stranger.id }).eq('followee_id', u.priv.id);
    expect(refusal(moved)).toEqual({ status: 403, code: '42501', hint: null });

    expect((await request(u.priv.sdk, u.priv)).data).toEqual([{ status: 'accepted' }]);
    // Only pending → accepted: an accepted follow is no longer the followee's to update.
    expect((await request(u.priv.sdk, u.priv)).data).toEqual([]);
  });

  it('delete: either party ends a follow; a stranger, an admin and the banned follower delete 0 rows', async () => {
    const follower = await sdkUser('leaver');
    const removed = await sdkUser('removed');
    await rootFollow(follower, u.pub);
    await rootFollow(removed, u.pub);
    const end = (client: Sdk, who: SdkUser) =>
      client.from('follows').delete().eq('follower_id', who.id).eq('followee_id', u.pub.id).select('follower_id');
    for (const name of ['stranger', 'admin', 'fan']) {
      const { data, error } = await end(u[name].sdk, follower);
      expect([name, error, data]).toEqual([name, null, []]);
    }
    expect((await end(u.banned.sdk, u.banned)).data).toEqual([]);
    expect((await end(follower.sdk, follower)).data).toEqual([{ follower_id: follower.id }]); // unfollow
    expect((await end(u.pub.sdk, removed)).data).toEqual([{ follower_id: removed.id }]); // remove a follower
    const left = await asRoot`select follower_id from public.follows where followee_id = ${u.pub.id}
      and follower_id in (${follower.id}, ${removed.id}, ${u.banned.id})`;
    expect(left.map((row) => row.follower_id)).toEqual([u.banned.id]);
  });
});
