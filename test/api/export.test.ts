// GET /user/export (docs/PRODUCT.md, "Data export"): the owner's archive, every section, and nothing of
// another account's that the owner may not see.
import { describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.ts';
import { appWith } from '../helpers/app.ts';
import { asRoot, rpc } from '../helpers/db.ts';
import { api } from '../helpers/http.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('the data export', () => {
  it("holds everything the account owns and its relations, and never another account's private data", async () => {
    const [owner, friend, shy, blocker, pest] = await Promise.all(
      ['owner', 'friend', 'shy', 'blocker', 'pest'].map((label) =>
        createAccount(label, { isPrivate: label === 'shy' })
      ),
    );
    const mine = await rpc(owner, 'create_post', {
      p_body: 'only me',
      p_privacy: 'private',
      p_media: [`${owner.id}/a.jpg`],
    });
    const friendsPost = await rpc(friend, 'create_post', {
      p_body: 'for close friends of friend',
      p_privacy: 'close_friends',
    });
    await rpc(friend, 'set_close_friend', { p_username: owner.username, p_close: true });
    await rpc(owner, 'follow', { p_username: friend.username });
    await rpc(owner, 'follow', { p_username: shy.username }); // a pending request
    await rpc(friend, 'follow', { p_username: owner.username });
    await rpc(owner, 'comment_post', { p_post_id: friendsPost.id, p_body: 'nice' });
    await rpc(owner, 'like_post', { p_post_id: friendsPost.id });
    await rpc(friend, 'like_post', { p_post_id: mine.id }).catch(() => undefined); // a private post: friend may not
    await rpc(owner, 'set_close_friend', { p_username: friend.username, p_close: true });
    await rpc(owner, 'mute', { p_username: pest.username, p_mute: true });
    await rpc(owner, 'report_user', { p_username: pest.username, p_reason: 'spam' });
    await rpc(owner, 'block', { p_username: pest.username, p_block: true });
    await rpc(blocker, 'block', { p_username: owner.username, p_block: true });

    const answer = await fetch(`${stack.functionsUrl}/user/export`, {
      headers: { Authorization: `Bearer ${owner.accessToken}` },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('Content-Type')).toMatch(/^application\/json/);
    expect(answer.headers.get('Content-Disposition')).toMatch(/^attachment/);
    const text = await answer.text();
    const archive = JSON.parse(text);
    expect(archive).toMatchObject({ format: 'daykeeper-archive/1', profile: { id: owner.id, email: owner.email } });
    expect(archive.posts.map((p: { id: string }) => p.id)).toEqual([mine.id]);
    expect(archive.posts[0]).toMatchObject({ body: 'only me', privacy: 'private', media: [`${owner.id}/a.jpg`] });
    expect(archive.comments.map((c: { body: string }) => c.body)).toEqual(['nice']);
    expect(archive.likes.map((l: { post_id: string }) => l.post_id)).toEqual([friendsPost.id]);
    expect(archive.following.map((f: { username: string; status: string }) => [f.username, f.status]).sort())
      .toEqual([[friend.username, 'accepted'], [shy.username, 'pending']].sort());
    expect(archive.followers.map((f: { username: string }) => f.username)).toEqual([friend.username]);
    expect(archive.close_friends.map((f: { username: string }) => f.username)).toEqual([friend.username]);
    expect(archive.blocks.map((b: { username: string }) => b.username)).toEqual([pest.username]);
    expect(archive.mutes).toEqual([]); // the block ended the mute
    expect(archive.reports).toMatchObject([{ target_type: 'user', target_user_id: pest.id, reason: 'spam' }]);
    expect(archive.notifications.map((n: { kind: string }) => n.kind)).toEqual(['follow']);
    // Not another account's e-mail, its close-friends post, nor who blocked the owner.
    for (const secret of [friend.email, 'for close friends of friend', blocker.id, blocker.username]) {
      expect([secret, text.includes(secret)]).toEqual([secret, false]);
    }
  });

  it("is the signed-in owner's only", async () => {
    expect((await api('GET', '/user/export')).status).toBe(401);
    const other = await createAccount('other');
    const archive = (await api('GET', '/user/export', { token: other.accessToken })).body;
    expect(archive.profile.id).toBe(other.id);
    expect(archive.posts).toEqual([]);
  });

  it('is one at a time per account, refused before its 200, and an archive of 20,000 posts arrives whole', async () => {
    const [owner, ...neighbours] = await Promise.all(
      ['prolific', 'one', 'two', 'three'].map((label) => createAccount(label)),
    );
    await asRoot`insert into public.posts (author_id, body) select ${owner.id}, 'day ' || n from generate_series(1, 20000) n`;
    const exportOf = (token: string) =>
      fetch(`${stack.functionsUrl}/user/export`, { headers: { Authorization: `Bearer ${token}` } });
    // The first export answers 200 at once; its body is left unread for now, so its transaction stays open.
    const first = await exportOf(owner.accessToken);
    expect(first.status).toBe(200);
    // While it runs, more exports of the same account are refused at once, with a wait: they hold no connection.
    const more = await Promise.all(Array.from({ length: 8 }, async () => {
      const answer = await exportOf(owner.accessToken);
      const body = await answer.json() as { error?: { code: string } };
      return { status: answer.status, code: body.error?.code, retryAfter: Number(answer.headers.get('Retry-After')) };
    }));
    expect(more).toEqual(
      Array.from({ length: 8 }, () => ({ status: 429, code: 'export_in_progress', retryAfter: 10 })),
    );
    // The first archive is read now, whole: each batch is a statement of its own, not one cut short by the 8 s
    // timeout. Meanwhile other accounts export and read, none answered 503.
    const [text, others] = await Promise.all([
      first.text(),
      Promise.all([
        ...neighbours.map((neighbour) => api('GET', '/user/export', { token: neighbour.accessToken })),
        ...Array.from(
          { length: 12 },
          () => api('GET', `/${owner.username}/posts`, { token: neighbours[0].accessToken }),
        ),
      ]),
    ]);
    expect(others.map((answer) => answer.status)).toEqual(others.map(() => 200));
    const archive = JSON.parse(text);
    expect(archive.posts).toHaveLength(20000);
    expect(new Set(archive.posts.map((post: { body: string }) => post.body)).size).toBe(20000);
    // Once it is done, the account exports again.
    const again = await exportOf(owner.accessToken);
    expect(again.status).toBe(200);
    await again.body?.cancel();
  }, 120_000);

  it(
    'takes at most a quarter of the pool: a slow reader holds its place, others wait their turn, every other request goes on',
    async () => {
      const facade = appWith({ DB_POOL_MAX: '4' }); // one place for long reads
      const [slow, next, reader] = await Promise.all(['slow', 'next', 'reader'].map((label) => createAccount(label)));
      const get = (path: string, token: string) =>
        facade.request(`/api${path}`, { headers: { Authorization: `Bearer ${token}` } });
      const held = await get('/user/export', slow.accessToken); // its body never read: it holds its connection
      expect(held.status).toBe(200);
      const others = await Promise.all(Array.from({ length: 6 }, () => get(`/${slow.username}`, reader.accessToken)));
      expect(others.map((answer) => answer.status)).toEqual(Array(6).fill(200));
      const waited = await get('/user/export', next.accessToken);
      expect([
        waited.status,
        ((await waited.json()) as { error: { code: string } }).error.code,
        waited.headers.get('retry-after'),
      ])
        .toEqual([503, 'exports_busy', '30']);
      await held.body?.cancel();
      const turn = await get('/user/export', next.accessToken);
      expect(turn.status).toBe(200);
      expect(JSON.parse(await turn.text()).profile.username).toBe(next.username);
    },
    30_000,
  );
});
