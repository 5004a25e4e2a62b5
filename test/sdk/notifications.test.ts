// public.notifications through supabase-js: written by the database alone; a recipient reads theirs (those whose
// actor and subject they may still see) and marks them read, and nobody else reads or touches them.
import { beforeAll, describe, expect, it } from 'vitest';
import { banDirectly, makeAdmin } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { anonSdk, refusal, rootBlock, rootFollow, rootPost, type SdkUser, sdkUser } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('notifications through supabase-js', () => {
  const u = {} as Record<string, SdkUser>;
  let names: Record<string, string>;

  beforeAll(async () => {
    const labels = ['recipient', 'actor', 'blockedActor', 'stranger', 'admin', 'banned'];
    (await Promise.all(labels.map((label) => sdkUser(label)))).forEach((user, i) => (u[labels[i]] = user));
    names = Object.fromEntries(labels.map((label) => [u[label].id, label]));
    await makeAdmin(u.admin);
    const post = await rootPost(u.recipient, 'public');
    await rootFollow(u.actor, u.recipient);
    await asRoot`insert into public.post_likes (post_id, user_id) values (${post}, ${u.actor.id}), (${post}, ${u.blockedActor.id})`;
    await rootBlock(u.recipient, u.blockedActor); // after the like: its notification stays, hidden
    await rootFollow(u.actor, u.banned);
    await banDirectly(u.banned);
  });

  async function notificationsOf(recipient: SdkUser): Promise<string[]> {
    const rows = await asRoot`select id from public.notifications where recipient_id = ${recipient.id}`;
    return rows.map((row) => row.id);
  }

  it("select: the recipient reads theirs but the blocked actor's; the actor, strangers, admins and anon read none", async () => {
    const ids = await notificationsOf(u.recipient);
    expect(ids).toHaveLength(3); // the follow, and both likes
    const seen: Record<string, string[]> = {};
    for (const name of ['recipient', 'actor', 'stranger', 'admin']) {
      const { data, error } = await u[name].sdk.from('notifications').select('kind, actor_id').in('id', ids).order(
        'kind',
      );
      expect(error).toBeNull();
      seen[name] = data!.map((row) => `${row.kind} by ${names[row.actor_id]}`);
    }
    expect(seen).toEqual({ recipient: ['follow by actor', 'post_like by actor'], actor: [], stranger: [], admin: [] });
    const anon = await anonSdk().from('notifications').select('id');
    expect(refusal(anon)).toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
  });

  it("select: a banned recipient's live session reads none of its own", async () => {
    const ids = await notificationsOf(u.banned);
    expect(ids).toHaveLength(1);
    const { data, error } = await u.banned.sdk.from('notifications').select('id').in('id', ids);
    expect(error).toBeNull();
    expect(data).toEqual([]);
  });

  it('update: the recipient marks theirs read; others change 0 rows, and read_at is the only writable column', async () => {
    const ids = await notificationsOf(u.recipient);
    for (const name of ['actor', 'stranger', 'admin']) {
      const { data, error } = await u[name].sdk.from('notifications').update({ read_at: new Date().toISOString() }).in(
        'id',
        ids,
      ).select('id');
      expect([name, error, data]).toEqual([name, null, []]);
    }
    const banned = await u.banned.sdk.from('notifications').update({ read_at: new Date().toISOString() }).in(
      'id',
      await notificationsOf(u.banned),
    ).select('id');
    expect(banned.data).toEqual([]);
    const anon = await anonSdk().from('notifications').update({ read_at: new Date().toISOString() }).in('id', ids);
    expect(refusal(anon)).toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
    const kind = await u.recipient.sdk.from('notifications').update({ kind: 'mention' }).in('id', ids);
    expect(refusal(kind)).toEqual({ status: 403, code: '42501', hint: null });

    const { data } = await u.recipient.sdk.from('notifications').update({ read_at: new Date().toISOString() }).in(
      'id',
      ids,
    ).select('id');
    expect(data).toHaveLength(2); // the blocked actor's stays out of reach, unread
    const unread = await asRoot`select actor_id from public.notifications where id in ${
      asRoot(ids)
    } and read_at is null`;
    expect(unread.map((row) => names[row.actor_id])).toEqual(['blockedActor']);
  });

  it('insert and delete: no client writes or removes a notification', async () => {
    const insert = await u.actor.sdk.from('notifications').insert({
      recipient_id: u.recipient.id,
      actor_id: u.actor.id,
      kind: 'follow',
    });
    expect(refusal(insert)).toEqual({ status: 403, code: '42501', hint: null });
    const remove = await u.recipient.sdk.from('notifications').delete().in('id', await notificationsOf(u.recipient));
    expect(refusal(remove)).toEqual({ status: 403, code: '42501', hint: null });
    expect(await notificationsOf(u.recipient)).toHaveLength(3);
  });
});
