// Mutes (supabase/schemas/28_mutes.sql): a muted account's posts leave the muter's feed and post search and its
// acts stop notifying the muter, while its profile and posts stay reachable; the muted account cannot find out;
// a mute ends with its duration or a block.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type Account, createAccount } from '../helpers/accounts.ts';
import { as, asRoot, backdate, errorOf, rpc } from '../helpers/db.ts';
import { authIsRunning } from '../helpers/stack.ts';

const feedBodies = async (reader: Account) =>
  (await rpc(reader, 'feed')).items.map((post: { body: string }) => post.body);
const searchIds = async (reader: Account, q: string) =>
  (await rpc(reader, 'search', { p_q: q, p_type: 'posts' })).items.map((post: { id: string }) => post.id).sort();
const notices = async (recipient: Account) =>
  (await rpc(recipient, 'notifications')).items.map((n: { kind: string; actor: { username: string } }) =>
    `${n.kind} ${n.actor.username}`
  );

/** `reader` follows `loud` and `quiet`, each of which posted a word of its own test. */
async function arrange(word: string) {
  const [reader, loud, quiet] = await Promise.all(['reader', 'loud', 'quiet'].map((label) => createAccount(label)));
  for (const followee of [loud, quiet]) await rpc(reader, 'follow', { p_username: followee.username });
  const loudPost = (await rpc(loud, 'create_post', { p_body: `${word} from loud` })).id;
  const quietPost = (await rpc(quiet, 'create_post', { p_body: `${word} from quiet` })).id;
  const readerPost = (await rpc(reader, 'create_post', { p_body: 'my day' })).id;
  return { reader, loud, quiet, loudPost, quietPost, readerPost };
}

describe.skipIf(!authIsRunning)('mutes', () => {
  it("take the muted account's posts out of the feed and post search and stop its notices; its profile and posts stay reachable", async () => {
    const word = `m${Date.now().toString(36)}`;
    const { reader, loud, quiet, loudPost, quietPost, readerPost } = await arrange(word);
    expect(await rpc(reader, 'mute', { p_username: loud.username })).toMatchObject({
      muted: true,
      notifications_only: false,
      expires_at: null,
    });

    expect(await feedBodies(reader)).toEqual(['my day', `${word} from quiet`]);
    expect(await searchIds(reader, word)).toEqual([quietPost]);
    expect(await searchIds(quiet, word)).toEqual([loudPost, quietPost].sort()); // nobody else's search changes
    await rpc(loud, 'like_post', { p_post_id: readerPost });
    await rpc(quiet, 'like_post', { p_post_id: readerPost });
    expect(await notices(reader)).toEqual([`post_like ${quiet.username}`]);
    expect((await rpc(reader, 'get_post', { p_post_id: loudPost })).id).toBe(loudPost);
    expect((await rpc(reader, 'get_profile', { p_username: loud.username })).username).toBe(loud.username);
    // The account itself is still found, and unmuting brings its posts back.
    expect(
      (await rpc(reader, 'search', { p_q: loud.username, p_type: 'users' })).items.map((u: { id: string }) => u.id),
    ).toContain(loud.id);
    expect(await rpc(reader, 'mute', { p_username: loud.username })).toMatchObject({ muted: false });
    expect(await feedBodies(reader)).toEqual(['my day', `${word} from quiet`, `${word} from loud`]);
  });

  it('notifications only: the posts stay, the notices stop', async () => {
    const { reader, loud, readerPost } = await arrange(`n${Date.now().toString(36)}`);
    await rpc(reader, 'mute', { p_username: loud.username, p_mute: true, p_notifications_only: true });
    expect(await feedBodies(reader)).toHaveLength(3);
    await rpc(loud, 'comment_post', { p_post_id: readerPost, p_body: 'hello' });
    expect(await notices(reader)).toEqual([]);
  });

  it('are seen by their owner only; muting an account one may not see is refused as an unknown one', async () => {
    const { reader, loud } = await arrange(`s${Date.now().toString(36)}`);
    await rpc(reader, 'mute', { p_username: loud.username, p_mute: true });
    expect((await rpc(reader, 'mutes')).items.map((m: { username: string }) => m.username)).toEqual([loud.username]);
    expect((await rpc(loud, 'mutes')).items).toEqual([]);
    expect(await as(loud, (tx) => tx`select * from public.mutes`)).toEqual([]);
    expect(await as(reader, (tx) => tx`select muted_id from public.mutes`)).toEqual([{ muted_id: loud.id }]);

    const blocker = await createAccount('blocker');
    await rpc(blocker, 'block', { p_username: reader.username, p_block: true });
    const viaApi = await errorOf(rpc(reader, 'mute', { p_username: blocker.username, p_mute: true }));
    const unknown = await errorOf(rpc(reader, 'mute', { p_username: 'nobody_at_all_here', p_mute: true }));
    expect(viaApi).toEqual({ ...unknown, message: `No user "${blocker.username}"` }); // the name asked for, nothing more
    const direct = await errorOf(as(reader, (tx) => tx`insert into public.mutes (muted_id) values (${blocker.id})`));
    const directUnknown = await errorOf(
      as(reader, (tx) => tx`insert into public.mutes (muted_id) values (${randomUUID()})`),
    );
    expect(direct.code).toBe('42501');
    expect(directUnknown.code).toBe(direct.code);
  });

  it('end by themselves after their duration, and with a block either way', async () => {
    const { reader, loud, quiet } = await arrange(`e${Date.now().toString(36)}`);
    const muted = await rpc(reader, 'mute', { p_username: loud.username, p_mute: true, p_duration: 3600 });
    expect(Date.parse(muted.expires_at) - Date.now()).toBeGreaterThan(3500_000);
    expect(await feedBodies(reader)).toHaveLength(2);
    await backdate(
      'public.mutes',
      `created_at = now() - interval '2 hours', expires_at = now() - interval '1 hour'`,
      'muter_id = $1',
      reader.id,
    );
    expect(await feedBodies(reader)).toHaveLength(3);
    expect((await rpc(reader, 'mutes')).items).toEqual([]);

    await rpc(reader, 'mute', { p_username: quiet.username, p_mute: true });
    await rpc(quiet, 'block', { p_username: reader.username, p_block: true });
    expect(await asRoot`select 1 from public.mutes where muter_id = ${reader.id} and muted_id = ${quiet.id}`)
      .toHaveLength(0);
    await rpc(quiet, 'block', { p_username: reader.username, p_block: false });
    expect((await rpc(reader, 'mutes')).items).toEqual([]);
  });

  it('refuse oneself and a duration out of range', async () => {
    const reader = await createAccount('reader');
    const other = await createAccount('other');
    expect(await errorOf(rpc(reader, 'mute', { p_username: reader.username }))).toMatchObject({
      code: 'PT400',
      hint: 'cannot_mute_self',
    });
    for (const duration of [59, 367 * 86400]) {
      expect(await errorOf(rpc(reader, 'mute', { p_username: other.username, p_duration: duration }))).toMatchObject({
        code: 'PT400',
        hint: 'invalid_duration',
      });
    }
    expect(await asRoot`select 1 from public.mutes where muter_id = ${reader.id}`).toHaveLength(0);
  });
});
