// GET /notifications, POST /notifications/read and the unread count of GET /auth/user over HTTP (the rules are
// proved in test/db/notifications.test.ts).
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/http.ts';
import { registerAndConfirm, type Registered } from '../helpers/registration.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('notifications over HTTP', () => {
  let ann: Registered;
  let ben: Registered;

  beforeAll(async () => {
    [ann, ben] = await Promise.all([registerAndConfirm('ann'), registerAndConfirm('ben')]);
  });

  it('lists them, counts the unread in GET /auth/user, and marks them read', async () => {
    const token = ann.session.access_token;
    await api('POST', `/${ann.username}/follow`, { token: ben.session.access_token });
    await api('POST', '/post/create', { token: ben.session.access_token, json: { body: `hello @${ann.username}` } });
    expect((await api('GET', '/auth/user', { token })).body.profile.unread_notifications).toBe(2);
    const page = await api('GET', '/notifications?unread=true&limit=1', { token });
    expect(page.status).toBe(200);
    expect(page.body.items.map((n: { kind: string }) => n.kind)).toEqual(['mention']);
    // What a client shows beside it, with no request per item.
    expect(page.body.items[0]).toMatchObject({ post_excerpt: `hello @${ann.username}`, comment_excerpt: null });
    expect(page.body.next_cursor).not.toBeNull();
    const older = await api('GET', `/notifications?cursor=${page.body.next_cursor}`, { token });
    expect(older.body.items.map((n: { kind: string }) => n.kind)).toEqual(['follow']);
    expect(older.body.items[0]).toMatchObject({ post_excerpt: null, comment_excerpt: null });

    expect((await api('POST', '/notifications/read', { token, json: { until: older.body.items[0].id } })).body)
      .toEqual({ marked: 1, unread_notifications: 1 });
    expect((await api('POST', '/notifications/read', { token })).body).toEqual({ marked: 1, unread_notifications: 0 });
    expect((await api('GET', '/notifications?unread=true', { token })).body.items).toEqual([]);
  });

  it('carry the first 140 characters of the comment they are about', async () => {
    const post = await api('POST', '/post/create', { token: ann.session.access_token, json: { body: 'a day out' } });
    const long = 'x'.repeat(200);
    await api('POST', `/post/${post.body.id}/comment`, { token: ben.session.access_token, json: { body: long } });
    const [comment] = (await api('GET', '/notifications?unread=true', { token: ann.session.access_token })).body.items;
    expect(comment).toMatchObject({ kind: 'comment', post_excerpt: 'a day out', comment_excerpt: long.slice(0, 140) });
  });

  it('needs a token, and valid input', async () => {
    const token = ann.session.access_token;
    expect((await api('GET', '/notifications')).status).toBe(401);
    expect((await api('POST', '/notifications/read')).status).toBe(401);
    expect((await api('GET', '/notifications?unread=maybe', { token })).status).toBe(400);
    expect((await api('POST', '/notifications/read', { token, json: { until: 'not-an-id' } })).status).toBe(400);
    const unknown = await api('POST', '/notifications/read', { token, json: { until: crypto.randomUUID() } });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'notification_not_found']);
  });
});
