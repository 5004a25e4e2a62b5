// public.profiles through supabase-js: who reads a profile, and that only its owner edits it, and only the
// editable columns.
import { beforeAll, describe, expect, it } from 'vitest';
import { banDirectly, makeAdmin } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { anonSdk, refusal, rootBlock, type Sdk, type SdkUser, sdkUser } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('profiles through supabase-js', () => {
  let owner: SdkUser;
  let stranger: SdkUser;
  let blocker: SdkUser; // blocks owner
  let blocked: SdkUser; // blocked by owner
  let admin: SdkUser;
  let banned: SdkUser; // signed in, then banned: a live client of an ended session

  beforeAll(async () => {
    [owner, stranger, blocker, blocked, admin, banned] = await Promise.all(
      ['owner', 'stranger', 'blocker', 'blocked', 'admin', 'banned'].map((label) => sdkUser(label)),
    );
    await makeAdmin(admin);
    await rootBlock(blocker, owner);
    await rootBlock(owner, blocked);
    await banDirectly(banned);
  });

  const clients = (): Record<string, Sdk> => ({
    anon: anonSdk(),
    owner: owner.sdk,
    stranger: stranger.sdk,
    blocker: blocker.sdk,
    blocked: blocked.sdk,
    banned: banned.sdk,
    admin: admin.sdk,
  });

  async function sees(client: Sdk, id: string): Promise<boolean> {
    const { data, error } = await client.from('profiles').select('id').eq('id', id);
    expect(error).toBeNull();
    return data!.length === 1;
  }

  it('select: everyone but the two sides of a block reads a profile', async () => {
    const seen: Record<string, boolean> = {};
    for (const [name, client] of Object.entries(clients())) seen[name] = await sees(client, owner.id);
    expect(seen).toEqual({
      anon: true,
      owner: true,
      stranger: true,
      admin: true,
      blocker: false,
      blocked: false,
      banned: true, // its ended session reads as anon does
    });
  });

  it('select: a banned account is invisible to all but admins, its own live session included', async () => {
    const seen: Record<string, boolean> = {};
    for (const [name, client] of Object.entries(clients())) seen[name] = await sees(client, banned.id);
    expect(seen).toEqual({
      anon: false,
      owner: false,
      stranger: false,
      blocker: false,
      blocked: false,
      banned: false,
      admin: true,
    });
  });

  it('update: the owner edits their bio; a stranger, an admin, either side of a block and the banned change 0 rows', async () => {
    for (const [name, client] of Object.entries(clients())) {
      if (name === 'owner' || name === 'anon') continue;
      const { data, error } = await client.from('profiles').update({ bio: `set by ${name}` }).eq('id', owner.id).select(
        'id',
      );
      expect([name, error, data]).toEqual([name, null, []]);
    }
    const { data: own } = await banned.sdk.from('profiles').update({ bio: 'still here?' }).eq('id', banned.id).select(
      'id',
    );
    expect(own).toEqual([]);

    const { data, error } = await owner.sdk.from('profiles').update({ bio: 'mine' }).eq('id', owner.id).select(
      'id, bio',
    ).single();
    expect(error).toBeNull();
    expect(data).toEqual({ id: owner.id, bio: 'mine' });
    const [row] = await asRoot`select bio from public.profiles where id = ${owner.id}`;
    expect(row.bio).toBe('mine');
  });

  it('update: counters, bans and ids are not writable (403), and anon writes nothing (401)', async () => {
    for (const change of [{ banned_at: null }, { confirmed_at: null }, { id: stranger.id }]) {
      const result = await owner.sdk.from('profiles').update(change).eq('id', owner.id);
      expect([change, refusal(result)]).toEqual([change, { status: 403, code: '42501', hint: null }]);
      expect(result.error?.message).toBe('permission denied for table profiles');
    }
    // A counter is refused by its guard, with its code (supabase/ERRORS.md).
    const counter = await owner.sdk.from('profiles').update({ followers_count: 1000 }).eq('id', owner.id);
    expect(refusal(counter)).toEqual({ status: 403, code: 'PT403', hint: 'counter_is_derived' });
    const anon = await anonSdk().from('profiles').update({ bio: 'anon' }).eq('id', owner.id);
    expect(refusal(anon)).toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
    const allowed = await owner.sdk.from('profiles').update({ display_name: 'Owner' }).eq('id', owner.id).select(
      'display_name',
    );
    expect(allowed.data).toEqual([{ display_name: 'Owner' }]);
  });

  it('insert and delete: no client makes or removes a profile (accounts come from Auth)', async () => {
    const insert = await owner.sdk.from('profiles').insert({ id: owner.id, username: 'another_me' });
    expect(refusal(insert)).toEqual({ status: 403, code: '42501', hint: null });
    const remove = await owner.sdk.from('profiles').delete().eq('id', owner.id);
    expect(refusal(remove)).toEqual({ status: 403, code: '42501', hint: null });
    const adminRemove = await admin.sdk.from('profiles').delete().eq('id', stranger.id);
    expect(refusal(adminRemove)).toEqual({ status: 403, code: '42501', hint: null });
    expect(await sees(owner.sdk, owner.id)).toBe(true);
  });

  it('update: a username edit meets the same rules as registration', async () => {
    const reserved = await owner.sdk.from('profiles').update({ username: 'admin' }).eq('id', owner.id);
    expect(refusal(reserved)).toEqual({ status: 400, code: 'PT400', hint: 'username_reserved' });
    const taken = await owner.sdk.from('profiles').update({ username: stranger.username.toUpperCase() }).eq(
      'id',
      owner.id,
    );
    expect(refusal(taken)).toEqual({ status: 409, code: 'PT409', hint: 'username_taken' });
    const malformed = await owner.sdk.from('profiles').update({ username: 'no spaces!' }).eq('id', owner.id);
    expect(refusal(malformed)).toEqual({ status: 400, code: 'PT400', hint: 'invalid_username' });
    const renamed = `${owner.username.slice(0, 26)}_new`;
    const { data } = await owner.sdk.from('profiles').update({ username: renamed.toUpperCase() }).eq('id', owner.id)
      .select('username');
    expect(data).toEqual([{ username: renamed }]);
  });
});
