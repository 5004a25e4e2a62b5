// public.ban_history through supabase-js: admins read it, nobody writes it directly (bans go through the
// admin functions), and a revoked admin's live session loses it at once.
import { beforeAll, describe, expect, it } from 'vitest';
import { makeAdmin } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { anonSdk, bannedSdkUser, refusal, rootPost, type SdkUser, sdkUser } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('ban history through supabase-js', () => {
  let admin: SdkUser;
  let author: SdkUser;
  let banned: SdkUser;
  let post: string;

  beforeAll(async () => {
    [admin, author] = await Promise.all([sdkUser('admin'), sdkUser('author')]);
    banned = await bannedSdkUser('banned');
    await makeAdmin(admin);
    post = await rootPost(author, 'public');
    await asRoot`select moderation.ban_post(${post}, 'off topic')`;
  });

  async function entries(client: SdkUser['sdk']): Promise<string[]> {
    const { data, error } = await client.from('ban_history').select('element_type, action, reason')
      .in('element_id', [post, banned.id]).order('element_type');
    expect(error).toBeNull();
    return data!.map((row) => `${row.action} ${row.element_type}: ${row.reason}`);
  }

  it('select: admins read every entry; the author of a banned post, the banned account and anon do not', async () => {
    expect(await entries(admin.sdk)).toEqual(['ban user: banned by a test', 'ban post: off topic']);
    expect(await entries(author.sdk)).toEqual([]);
    expect(await entries(banned.sdk)).toEqual([]);
    const anon = await anonSdk().from('ban_history').select('id');
    expect(refusal(anon)).toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
  });

  it('select: an admin whose right is revoked reads nothing more, in the same session', async () => {
    const former = await sdkUser('former');
    await makeAdmin(former);
    expect(await entries(former.sdk)).toHaveLength(2);
    await asRoot`delete from private.admins where user_id = ${former.id}`;
    expect(await entries(former.sdk)).toEqual([]);
  });

  it('insert, update and delete: not even an admin writes the history directly', async () => {
    const insert = await admin.sdk.from('ban_history')
      .insert({ element_type: 'post', element_id: post, action: 'unban', reason: 'forged' });
    expect(refusal(insert)).toEqual({ status: 403, code: '42501', hint: null });
    const update = await admin.sdk.from('ban_history').update({ reason: 'rewritten' }).eq('element_id', post);
    expect(refusal(update)).toEqual({ status: 403, code: '42501', hint: null });
    const remove = await admin.sdk.from('ban_history').delete().eq('element_id', post);
    expect(refusal(remove)).toEqual({ status: 403, code: '42501', hint: null });
    expect(await entries(admin.sdk)).toEqual(['ban user: banned by a test', 'ban post: off topic']);
  });
});
