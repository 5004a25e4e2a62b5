// The social paths over HTTP: each route reaches its SQL function as the caller, validates its input, and
// answers refusals with the documented status. The rules themselves are proved in test/db.
import { beforeAll, describe, expect, it } from 'vitest';
import { asRoot } from '../helpers/db.ts';
import { api } from '../helpers/http.ts';
import { registerAndConfirm, type Registered } from '../helpers/registration.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('users and relationships over HTTP', () => {
  let ann: Registered;
  let ben: Registered;
  let shy: Registered;

  beforeAll(async () => {
    ann = await registerAndConfirm('ann');
    ben = await registerAndConfirm('ben');
    shy = await registerAndConfirm('shy');
    await api('PUT', '/user', { token: shy.session.access_token, json: { is_private: true } });
  });

  it('GET /:username answers anyone, 404 for an unknown user, 400 for a malformed name', async () => {
    expect((await api('GET', `/${ann.username}`)).body).toMatchObject({ username: ann.username, viewer: null });
    expect((await api('GET', `/${ann.username}`, { token: ben.session.access_token })).body.viewer).toMatchObject({
      following: false,
    });
    expect((await api('GET', '/no_such_user_at_all')).status).toBe(404);
    expect((await api('GET', '/Not-A-Name!')).status).toBe(400);
  });

  it('POST /:username/follow toggles, takes an explicit state, and asks a private account', async () => {
    const token = ben.session.access_token;
    expect((await api('POST', `/${ann.username}/follow`, { token })).body.state).toBe('following');
    expect((await api('POST', `/${ann.username}/follow`, { token, json: { follow: true } })).body.state).toBe(
      'following',
    );
    expect((await api('POST', `/${ann.username}/follow`, { token })).body.state).toBe('none');
    // Media types are case-insensitive: an explicit state in "Application/JSON" must not toggle.
    const mixedCase = {
      token,
      body: JSON.stringify({ follow: true }),
      headers: { 'Content-Type': 'Application/JSON; charset=UTF-8' },
    };
    expect((await api('POST', `/${ann.username}/follow`, mixedCase)).body.state).toBe('following');
    expect((await api('POST', `/${ann.username}/follow`, mixedCase)).body.state).toBe('following');
    expect((await api('POST', `/${ann.username}/follow`, { token, json: { follow: false } })).body.state).toBe('none');
    expect((await api('POST', `/${shy.username}/follow`, { token })).body.state).toBe('requested');
    expect((await api('POST', `/${ann.username}/follow`)).status).toBe(401);
    expect((await api('POST', `/${ann.username}/follow`, { token, json: { follow: 'yes' } })).status).toBe(400);

    expect((await api('GET', `/${shy.username}/posts`, { token })).status).toBe(403);
    const requests = await api('GET', '/follow_requests', { token: shy.session.access_token });
    expect(requests.body.items.map((p: { username: string }) => p.username)).toContain(ben.username);
    const answered = await api('POST', `/${ben.username}/respond_follow`, {
      token: shy.session.access_token,
      json: { accept: true },
    });
    expect(answered.body.state).toBe('accepted');
    expect((await api('GET', `/${shy.username}/posts`, { token })).status).toBe(200);
    expect(
      (await api('GET', `/${shy.username}/followers`, { token })).body.items.map((p: { username: string }) =>
        p.username
      ),
    ).toEqual([ben.username]);
    expect((await api('DELETE', `/${ben.username}/follower`, { token: shy.session.access_token })).status).toBe(200);
    expect((await api('GET', `/${shy.username}/posts`, { token })).status).toBe(403);
  });

  it('close friends, blocks and reports', async () => {
    const token = ann.session.access_token;
    expect((await api('POST', `/close_friends/${ben.username}`, { token })).body.close_friend).toBe(true);
    expect((await api('GET', '/close_friends', { token })).body.items).toHaveLength(1);
    expect((await api('POST', `/${ben.username}/block`, { token })).body.blocked).toBe(true);
    expect((await api('GET', '/close_friends', { token })).body.items).toHaveLength(0);
    expect((await api('GET', `/${ann.username}`, { token: ben.session.access_token })).status).toBe(404);
    expect((await api('GET', '/blocks', { token })).body.items.map((p: { username: string }) => p.username)).toEqual([
      ben.username,
    ]);
    expect((await api('POST', `/${ben.username}/block`, { token, json: { block: false } })).body.blocked).toBe(false);
    expect((await api('POST', `/${ben.username}/report`, { token, json: { reason: 'rude' } })).status).toBe(201);
    expect((await api('POST', `/${ben.username}/report`, { token, json: { reason: 'again' } })).status).toBe(409);
    expect((await api('POST', `/${ben.username}/report`, { token, json: { reason: '' } })).status).toBe(400);
  });

  it('GET /:username/calendar and GET /date validate their dates', async () => {
    const token = ann.session.access_token;
    const post = await api('POST', '/post/create', { token, json: { body: 'calendar day' } });
    const day = post.body.day;
    const calendar = await api('GET', `/${ann.username}/calendar?from=${day}&to=${day}`);
    expect(calendar.body.days).toEqual([{ day, count: 1, level: 4 }]);
    expect((await api('GET', `/${ann.username}/calendar?from=2026-02-30`)).status).toBe(400);
    expect((await api('GET', `/${ann.username}/calendar?from=2026-03-01&to=2026-02-01`)).body.error.code).toBe(
      'invalid_range',
    );
    expect((await api('GET', `/date?day=${day}`, { token })).body.items.map((p: { id: string }) => p.id)).toEqual([
      post.body.id,
    ]);
    expect((await api('GET', `/date?day=${day}&username=${ann.username}`)).body.items).toHaveLength(1);
    expect((await api('GET', '/date?day=yesterday', { token })).status).toBe(400);
    expect((await api('GET', `/date?day=${day}`)).status).toBe(401);
  });
});

describe.skipIf(!authIsRunning)('posts and comments over HTTP', () => {
  it('a post is written, read, liked, commented, edited and deleted, each by whom may', async () => {
    const author = await registerAndConfirm('author');
    const reader = await registerAndConfirm('reader');
    const a = author.session.access_token;
    const r = reader.session.access_token;
    const created = await api('POST', '/post/create', {
      token: a,
      json: { body: 'a good day', emotion: 70, media: [`${author.userId}/1.jpg`] },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect((await api('GET', `/post/${id}`)).body).toMatchObject({ body: 'a good day', viewer: null });
    expect((await api('POST', `/post/${id}/like`, { token: r })).body).toMatchObject({
      likes_count: 1,
      viewer: { liked: true },
    });
    expect((await api('GET', `/post/${id}/likes`)).body.items.map((u: { username: string }) => u.username)).toEqual([
      reader.username,
    ]);

    const comment = await api('POST', `/post/${id}/comment`, { token: r, json: { body: 'lovely' } });
    expect(comment.status).toBe(201);
    const reply = await api('POST', `/post/comment/${comment.body.id}/reply`, { token: a, json: { body: 'thanks' } });
    expect(reply.body.parent_id).toBe(comment.body.id);
    expect((await api('POST', `/post/comment/${reply.body.id}/like`, { token: r })).body.likes_count).toBe(1);
    expect((await api('GET', `/post/comment/${reply.body.id}/likes`)).body.items).toHaveLength(1);
    expect((await api('GET', `/post/${id}/comments`)).body.items.map((c: { id: string }) => c.id)).toEqual([
      comment.body.id,
    ]);
    expect((await api('GET', `/post/comment/${comment.body.id}/replies`)).body.items.map((c: { id: string }) => c.id))
      .toEqual([reply.body.id]);
    expect((await api('GET', `/post/comment/${comment.body.id}`)).body.replies_count).toBe(1);
    expect((await api('POST', `/post/comment/${reply.body.id}/report`, { token: r, json: { reason: 'rude' } })).status)
      .toBe(201);
    expect((await api('POST', `/post/comment/${reply.body.id}/report`, { token: r, json: { reason: 'again' } })).status)
      .toBe(409);
    expect((await api('POST', `/post/comment/${reply.body.id}/report`, { token: r, json: { reason: '' } })).status)
      .toBe(400);
    expect((await api('DELETE', `/post/comment/${reply.body.id}`, { token: r })).status).toBe(403);
    expect((await api('DELETE', `/post/comment/${comment.body.id}`, { token: a })).status).toBe(200);

    expect((await api('PUT', `/post/${id}`, { token: r, json: { body: 'mine' } })).status).toBe(403);
    const edited = await api('PUT', `/post/${id}`, { token: a, json: { body: 'a great day', emotion: null } });
    expect(edited.body).toMatchObject({ body: 'a great day', emotion: null });
    expect((await api('POST', `/post/${id}/report`, { token: r, json: { reason: 'spoilers' } })).status).toBe(201);
    expect((await api('DELETE', `/post/${id}`, { token: r })).status).toBe(403);
    expect((await api('DELETE', `/post/${id}`, { token: a })).status).toBe(200);
    expect((await api('GET', `/post/${id}`)).status).toBe(404);
  });

  it('refuses bad input with 400 and nothing written', async () => {
    const author = await registerAndConfirm('author');
    const token = author.session.access_token;
    const bad = [
      { body: '' },
      { body: 'x'.repeat(1001) },
      { body: 'ok', media: ['1', '2', '3', '4', '5', '6'] },
      { body: 'ok', emotion: 101 },
      { body: 'ok', privacy: 'friends' },
      { body: 'ok', day: '2001-01-01' },
      { body: 42 },
    ];
    for (const json of bad) {
      expect([json, (await api('POST', '/post/create', { token, json })).status]).toEqual([json, 400]);
    }
    expect((await api('GET', `/${author.username}/posts`)).body.items).toEqual([]);
    expect((await api('GET', '/post/not-a-uuid')).status).toBe(400);
    expect((await api('GET', `/post/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await api('GET', `/${author.username}/posts?limit=1000`)).status).toBe(400);
    expect((await api('GET', `/${author.username}/posts?cursor=forged`)).body.error.code).toBe('invalid_cursor');
    // Postgres text cannot hold NUL: a 400, not a 500, wherever it arrives.
    for (
      const response of [
        await api('POST', '/post/create', { token, json: { body: 'a\u0000b' } }),
        await api('GET', `/${author.username}/posts?cursor=%00`),
        await api('PUT', '/user', { token, json: { bio: 'nul\u0000' } }),
      ]
    ) {
      expect([response.status, response.body.error.code]).toEqual([400, 'invalid_text']);
    }
    expect((await api('GET', `/${author.username}/posts`)).body.items).toEqual([]);
    expect((await api('GET', '/auth/user', { token })).body.profile.bio).toBe('');
  });
});

describe.skipIf(!authIsRunning)('admin over HTTP', () => {
  it('is refused to non-admins and works for admins: reports, bans, history, deletions', async () => {
    const boss = await registerAndConfirm('boss');
    const troll = await registerAndConfirm('troll');
    const victim = await registerAndConfirm('victim');
    await asRoot`insert into private.admins (user_id) values (${boss.userId})`;
    const b = boss.session.access_token;

    expect((await api('GET', '/admin/reports', { token: victim.session.access_token })).status).toBe(403);
    expect((await api('GET', '/admin/reports')).status).toBe(401);
    const post = await api('POST', '/post/create', { token: troll.session.access_token, json: { body: 'spam' } });
    const report = await api('POST', `/post/${post.body.id}/report`, {
      token: victim.session.access_token,
      json: { reason: 'spam' },
    });
    const groups = await api('GET', '/admin/reports?type=post', { token: b });
    expect(groups.body.items.find((g: { target_id: string }) => g.target_id === post.body.id)).toMatchObject({
      reports_count: 1,
    });
    expect((await api('DELETE', `/admin/report/${report.body.id}`, { token: b })).status).toBe(200);

    for (const json of [{}, { reason: '  ' }, { ban: true }]) {
      const refused = await api('POST', `/admin/post/${post.body.id}/ban`, { token: b, json });
      expect([json, refused.status, refused.body.error.code]).toEqual([json, 400, 'validation_failed']);
    }
    expect((await api('POST', `/admin/post/${post.body.id}/ban`, { token: b, json: { reason: 'spam' } })).body.banned)
      .toBe(true);
    expect((await api('GET', `/post/${post.body.id}`)).status).toBe(404);
    expect((await api('DELETE', `/admin/post/${post.body.id}`, { token: b })).status).toBe(200);

    expect(
      (await api('POST', `/admin/user/${troll.username}/ban`, { token: b, json: { reason: 'spam', ban: true } })).body
        .banned,
    ).toBe(true);
    expect((await api('GET', '/auth/user', { token: troll.session.access_token })).status).toBe(401);
    expect(
      (await api('GET', '/admin/bans?type=user', { token: b })).body.items.some((i: { user: { username: string } }) =>
        i.user.username === troll.username
      ),
    ).toBe(true);
    const history = await api('GET', `/admin/banHistory/${troll.userId}`, { token: b });
    expect(history.body.items.map((h: { action: string }) => h.action)).toEqual(['ban']);
    expect(
      (await api('GET', `/admin/banHistoryByAdmin/${boss.username}`, { token: b })).body.items.map((
        h: { element_type: string },
      ) => h.element_type),
    ).toEqual(['user', 'post']);
    expect((await api('POST', `/admin/user/${boss.username}/ban`, { token: b, json: { reason: 'self' } })).status).toBe(
      409,
    );
    expect((await api('DELETE', `/admin/user/${troll.username}`, { token: b })).status).toBe(200);
    expect((await api('POST', '/auth/login', { json: { login: troll.username, password: troll.password } })).status)
      .toBe(401);
  });
});
