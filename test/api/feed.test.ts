// GET /feed over HTTP: the route reaches public.feed as the caller (the rules are proved in test/db/feed.test.ts),
// wins over /:username, and validates its query.
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/http.ts';
import { registerAndConfirm, type Registered } from '../helpers/registration.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('GET /feed', () => {
  let reader: Registered;
  let friend: Registered;

  beforeAll(async () => {
    [reader, friend] = await Promise.all([registerAndConfirm('reader'), registerAndConfirm('friend')]);
    await api('POST', `/${friend.username}/follow`, { token: reader.session.access_token });
  });

  it("answers a page of the followed accounts' posts and one's own, by day too", async () => {
    const token = reader.session.access_token;
    const theirs = await api('POST', '/post/create', {
      token: friend.session.access_token,
      json: { body: 'from a friend' },
    });
    const mine = await api('POST', '/post/create', { token, json: { body: 'from me' } });
    const page = await api('GET', '/feed?limit=1', { token });
    expect(page.status).toBe(200);
    expect(page.body.items.map((p: { id: string }) => p.id)).toEqual([mine.body.id]);
    const next = await api('GET', `/feed?limit=1&cursor=${page.body.next_cursor}`, { token });
    expect(next.body.items.map((p: { id: string }) => p.id)).toEqual([theirs.body.id]);
    expect((await api('GET', `/feed?date=${mine.body.day}`, { token })).body.items).toHaveLength(2);
  });

  it('needs a token, and a valid date, cursor and limit', async () => {
    const token = reader.session.access_token;
    expect((await api('GET', '/feed')).body.error.code).toBe('unauthorized');
    expect((await api('GET', '/feed?date=tomorrow', { token })).status).toBe(400);
    expect((await api('GET', '/feed?limit=0', { token })).status).toBe(400);
    expect((await api('GET', '/feed?cursor=nonsense', { token })).body.error.code).toBe('invalid_cursor');
  });
});
