// Notifications, written by triggers with the event: each kind, each "none" rule, the dedupe key, deletion
// with the source, the list and marking read, and row-level security on the table.
import { describe, expect, it } from 'vitest';
import { type Account, banDirectly, createAccount } from '../helpers/accounts.ts';
import { as, asRoot, errorOf, rpc } from '../helpers/db.ts';
import { authIsRunning } from '../helpers/stack.ts';

interface Notification {
  id: string;
  kind: string;
  actor: { username: string };
  post_id: string | null;
  comment_id: string | null;
  read_at: string | null;
}

const inbox = async (recipient: Account, args: Record<string, unknown> = {}): Promise<Notification[]> =>
  (await rpc(recipient, 'notifications', args)).items;
const kinds = async (recipient: Account) => (await inbox(recipient)).map((n) => `${n.kind} by ${n.actor.username}`);
/** Every notification row of the recipient, whatever they may see now. */
const stored = async (recipient: Account) =>
  (await asRoot`select kind::text from public.notifications where recipient_id = ${recipient.id} order by created_at`)
    .map((r) => r.kind);

describe.skipIf(!authIsRunning)('notifications', () => {
  it('tell of a new follower, a follow request and its acceptance', async () => {
    const [ann, ben, shy] = await Promise.all(
      ['ann', 'ben', 'shy'].map((label) => createAccount(label, { isPrivate: label === 'shy' })),
    );
    await rpc(ben, 'follow', { p_username: ann.username });
    expect(await kinds(ann)).toEqual([`follow by ${ben.username}`]);
    await rpc(ben, 'follow', { p_username: shy.username });
    expect(await kinds(shy)).toEqual([`follow_request by ${ben.username}`]);
    await rpc(shy, 'respond_follow_request', { p_username: ben.username, p_accept: true });
    expect(await kinds(ben)).toEqual([`follow_accepted by ${shy.username}`]);
  });

  it('forget a follow request withdrawn or declined', async () => {
    const [asker, shy] = await Promise.all([createAccount('asker'), createAccount('shy', { isPrivate: true })]);
    await rpc(asker, 'follow', { p_username: shy.username });
    await rpc(asker, 'follow', { p_username: shy.username });
    expect(await stored(shy)).toEqual([]);
    await rpc(asker, 'follow', { p_username: shy.username });
    await rpc(shy, 'respond_follow_request', { p_username: asker.username, p_accept: false });
    expect(await stored(shy)).toEqual([]);
  });

  it('tell of likes, comments and replies, with their subject', async () => {
    const [author, fan] = await Promise.all([createAccount('author'), createAccount('fan')]);
    const post = await rpc(author, 'create_post', { p_body: 'a day' });
    await rpc(fan, 'like_post', { p_post_id: post.id });
    const comment = await rpc(fan, 'comment_post', { p_post_id: post.id, p_body: 'nice' });
    await rpc(author, 'like_comment', { p_comment_id: comment.id });
    const reply = await rpc(author, 'reply_comment', { p_comment_id: comment.id, p_body: 'thanks' });
    expect((await inbox(author)).map((n) => [n.kind, n.post_id, n.comment_id])).toEqual([
      ['comment', post.id, comment.id],
      ['post_like', post.id, null],
    ]);
    expect((await inbox(fan)).map((n) => [n.kind, n.post_id, n.comment_id])).toEqual([
      ['reply', post.id, reply.id],
      ['comment_like', post.id, comment.id],
    ]);
  });

  it('come once per act: a like undone and redone does not notify twice', async () => {
    const [author, fan] = await Promise.all([createAccount('author'), createAccount('fan')]);
    const post = await rpc(author, 'create_post', { p_body: 'like me' });
    for (let i = 0; i < 3; i++) await rpc(fan, 'like_post', { p_post_id: post.id });
    await rpc(fan, 'follow', { p_username: author.username });
    await rpc(fan, 'follow', { p_username: author.username });
    await rpc(fan, 'follow', { p_username: author.username });
    expect(await stored(author)).toEqual(['post_like', 'follow']);
  });

  it("never for one's own acts, across a block either way, or from a banned account", async () => {
    const [author, blocked, blocker, offender] = await Promise.all(
      ['author', 'blocked', 'blocker', 'offender'].map((label) => createAccount(label)),
    );
    const post = await rpc(author, 'create_post', { p_body: 'my day' });
    await rpc(author, 'like_post', { p_post_id: post.id });
    await rpc(author, 'comment_post', { p_post_id: post.id, p_body: 'and mine' });
    expect(await stored(author)).toEqual([]);

    // A like across a block, or by a banned account: neither could reach the post, and an admin's insert in Studio
    // is refused too (supabase/schemas/32_direct_edit_guards.sql), so no notice comes of it.
    await rpc(author, 'block', { p_username: blocked.username });
    await rpc(blocker, 'block', { p_username: author.username });
    await banDirectly(offender);
    for (const liker of [blocked, blocker, offender]) {
      expect(await errorOf(rpc(liker, 'like_post', { p_post_id: post.id }))).toMatchObject({
        code: liker === offender ? 'PT401' : 'PT404',
      });
      expect(await errorOf(asRoot`insert into public.post_likes (post_id, user_id) values (${post.id}, ${liker.id})`))
        .toMatchObject({ hint: 'not_visible_to_writer' });
    }
    expect(await stored(author)).toEqual([]);
  });

  it('disappear from the list once their actor is blocked or banned, and with the deleted subject', async () => {
    const [author, fan, troll] = await Promise.all(['author', 'fan', 'troll'].map((label) => createAccount(label)));
    const post = await rpc(author, 'create_post', { p_body: 'a day' });
    await rpc(fan, 'like_post', { p_post_id: post.id });
    await rpc(troll, 'comment_post', { p_post_id: post.id, p_body: 'meh' });
    expect(await kinds(author)).toEqual([`comment by ${troll.username}`, `post_like by ${fan.username}`]);
    await rpc(author, 'block', { p_username: troll.username });
    expect(await kinds(author)).toEqual([`post_like by ${fan.username}`]);
    await banDirectly(fan);
    expect(await kinds(author)).toEqual([]);
    await rpc(author, 'delete_post', { p_post_id: post.id });
    expect(await stored(author)).toEqual([]);
  });

  it('are listed by pages, unread only on demand, marked read all or up to one, and counted in me()', async () => {
    const author = await createAccount('author');
    const fans = await Promise.all([1, 2, 3].map((i) => createAccount(`fan${i}`)));
    for (const fan of fans) await rpc(fan, 'follow', { p_username: author.username });
    expect((await rpc(author, 'me')).unread_notifications).toBe(3);
    const first = await rpc(author, 'notifications', { p_limit: 2 });
    const second = await rpc(author, 'notifications', { p_limit: 2, p_cursor: first.next_cursor });
    expect([...first.items, ...second.items].map((n: Notification) => n.actor.username)).toEqual(
      fans.map((f) => f.username).reverse(),
    );

    const [oldest, middle] = [second.items[0], first.items[1]];
    expect(await rpc(author, 'read_notifications', { p_until: middle.id })).toEqual({
      marked: 2,
      unread_notifications: 1,
    });
    expect((await inbox(author, { p_unread: true })).map((n) => n.actor.username)).toEqual([fans[2].username]);
    expect((await inbox(author)).find((n) => n.id === oldest.id)?.read_at).not.toBeNull();
    expect(await rpc(author, 'read_notifications')).toEqual({ marked: 1, unread_notifications: 0 });
    expect((await rpc(author, 'me')).unread_notifications).toBe(0);
    expect(await errorOf(rpc(fans[0], 'read_notifications', { p_until: oldest.id }))).toMatchObject({
      code: 'PT404',
      hint: 'notification_not_found',
    });
  });

  it('are read and marked by their recipient alone, who may change read_at only', async () => {
    const [author, fan, other] = await Promise.all(['author', 'fan', 'other'].map((label) => createAccount(label)));
    await rpc(fan, 'follow', { p_username: author.username });
    const [{ id }] = await asRoot`select id from public.notifications where recipient_id = ${author.id}`;
    expect(await as(other, (tx) => tx`select id from public.notifications where id = ${id}`)).toHaveLength(0);
    expect(await as(other, (tx) => tx`update public.notifications set read_at = now() where id = ${id} returning id`))
      .toHaveLength(0);
    expect(await as(author, (tx) => tx`update public.notifications set read_at = now() where id = ${id} returning id`))
      .toHaveLength(1);
    expect(
      (await errorOf(as(author, (tx) => tx`update public.notifications set actor_id = ${other.id} where id = ${id}`)))
        .code,
    ).toBe('42501');
    for (const actor of [author, other]) {
      expect(
        (await errorOf(
          as(
            actor,
            (tx) =>
              tx`insert into public.notifications (recipient_id, actor_id, kind) values (${actor.id}, ${fan.id}, 'follow')`,
          ),
        ))
          .code,
      ).toBe('42501');
      expect((await errorOf(as(actor, (tx) => tx`delete from public.notifications where id = ${id}`))).code).toBe(
        '42501',
      );
    }
  });
});

describe.skipIf(!authIsRunning)('mentions', () => {
  it('resolve @username case-insensitively to visible accounts, in posts and comments, and notify once', async () => {
    const [author, ann, ben, hidden] = await Promise.all(
      ['author', 'ann', 'ben', 'hidden'].map((label) => createAccount(label)),
    );
    await rpc(hidden, 'block', { p_username: author.username });
    const body =
      `hi @${ann.username.toUpperCase()}, @${ann.username} and @${hidden.username}. mail x@${ben.username} @nobody_at_all`;
    const post = await rpc(author, 'create_post', { p_body: body });
    expect(post.mentions.map((m: { username: string }) => m.username)).toEqual([ann.username]);
    expect(await kinds(ann)).toEqual([`mention by ${author.username}`]);
    expect(await stored(hidden)).toEqual([]);

    const comment = await rpc(ben, 'comment_post', { p_post_id: post.id, p_body: `@${ann.username} see this.` });
    expect(comment.mentions.map((m: { username: string }) => m.username)).toEqual([ann.username]);
    expect((await inbox(ann)).map((n) => [n.kind, n.comment_id])).toEqual([['mention', comment.id], ['mention', null]]);
  });

  it('notify on edit only the newly mentioned, and forget those edited out', async () => {
    const [author, ann, ben] = await Promise.all(['author', 'ann', 'ben'].map((label) => createAccount(label)));
    const post = await rpc(author, 'create_post', { p_body: `with @${ann.username}` });
    const edited = await rpc(author, 'edit_post', {
      p_post_id: post.id,
      p_changes: { body: `with @${ann.username} and @${ben.username}.` },
    });
    expect(edited.mentions.map((m: { username: string }) => m.username).sort()).toEqual(
      [ann.username, ben.username].sort(),
    );
    expect(await stored(ann)).toEqual(['mention']);
    expect(await stored(ben)).toEqual(['mention']);
    await rpc(author, 'edit_post', { p_post_id: post.id, p_changes: { body: `with @${ben.username} only` } });
    expect(await stored(ann)).toEqual([]);
    expect(await stored(ben)).toEqual(['mention']);
  });

  it('keep at most 20 accounts per text, and are hidden from readers who may not see the account', async () => {
    const author = await createAccount('author');
    const named = await Promise.all(Array.from({ length: 21 }, (_, i) => createAccount(`m${i}`)));
    const post = await rpc(author, 'create_post', { p_body: named.map((a) => `@${a.username}`).join(' ') });
    expect(post.mentions).toHaveLength(20);
    expect(post.mentions.map((m: { username: string }) => m.username)).not.toContain(named[20].username);

    const reader = await createAccount('reader');
    await rpc(named[0], 'block', { p_username: reader.username });
    expect((await rpc(reader, 'get_post', { p_post_id: post.id })).mentions).toHaveLength(19);
  });

  it('of a post the mentioned account may not see are not shown to them', async () => {
    const [author, ann] = await Promise.all([createAccount('author'), createAccount('ann')]);
    await rpc(author, 'create_post', { p_body: `secretly about @${ann.username}`, p_privacy: 'private' });
    expect(await stored(ann)).toEqual(['mention']);
    expect(await inbox(ann)).toEqual([]);
    expect((await rpc(ann, 'me')).unread_notifications).toBe(0);
  });

  it('edited out and back in are not news again: the notification returns, already read', async () => {
    const [author, ann] = await Promise.all([createAccount('author'), createAccount('ann')]);
    const post = await rpc(author, 'create_post', { p_body: `hello @${ann.username}` });
    expect((await rpc(ann, 'me')).unread_notifications).toBe(1);
    for (let i = 0; i < 3; i++) {
      await rpc(author, 'edit_post', { p_post_id: post.id, p_changes: { body: 'hello' } });
      expect(await stored(ann)).toEqual([]);
      await rpc(author, 'edit_post', { p_post_id: post.id, p_changes: { body: `hello again @${ann.username}` } });
    }
    expect(await stored(ann)).toEqual(['mention']);
    expect((await rpc(ann, 'me')).unread_notifications).toBe(0);
    // Another account first mentioned in the same edit is news.
    const ben = await createAccount('ben');
    await rpc(author, 'edit_post', {
      p_post_id: post.id,
      p_changes: { body: `hello @${ann.username} and @${ben.username}` },
    });
    expect((await rpc(ben, 'me')).unread_notifications).toBe(1);
  });

  it('a raw call of the store helpers cannot name an account the writer may not see', async () => {
    const [author, blocker, banned, seen] = await Promise.all(
      ['author', 'blocker', 'banned', 'seen'].map((label) => createAccount(label)),
    );
    await rpc(blocker, 'block', { p_username: author.username });
    await banDirectly(banned);
    const names = [blocker, banned, seen].map((a) => `@${a.username}`).join(' ');
    const post = await rpc(author, 'create_post', { p_body: `hello ${names}` });
    expect(post.mentions.map((m: { username: string }) => m.username)).toEqual([seen.username]);
    await as(
      author,
      (tx) =>
        tx`select private.store_post_mentions(${post.id}, array[${blocker.id}, ${banned.id}, ${seen.id}]::uuid[])`,
    );
    const [row] =
      await asRoot`select array_agg(user_id order by user_id) as ids from public.post_mentions where post_id = ${post.id}`;
    expect(row.ids).toEqual([seen.id]);
    expect(await stored(blocker)).toEqual([]);
    expect(await asRoot`select 1 from public.notifications where recipient_id = ${banned.id}`).toHaveLength(0);
  });

  it("are set by the text's author alone, also through the definer helpers", async () => {
    const [author, ann, vandal] = await Promise.all(['author', 'ann', 'vandal'].map((label) => createAccount(label)));
    const post = await rpc(author, 'create_post', { p_body: `hello @${ann.username}` });
    const comment = await rpc(author, 'comment_post', { p_post_id: post.id, p_body: `and @${ann.username}` });
    const clearPost = (actor: Account) => as(actor, (tx) => tx`select private.store_post_mentions(${post.id}, '{}')`);
    const mentionInComment = (actor: Account) =>
      as(actor, (tx) => tx`select private.store_comment_mentions(${comment.id}, array[${ann.id}]::uuid[])`);

    expect((await errorOf(clearPost(vandal))).code).toBe('42501');
    expect((await errorOf(mentionInComment(vandal))).code).toBe('42501');
    expect((await rpc(ann, 'get_post', { p_post_id: post.id })).mentions).toHaveLength(1);

    await clearPost(author);
    expect((await rpc(ann, 'get_post', { p_post_id: post.id })).mentions).toEqual([]);
  });
});
