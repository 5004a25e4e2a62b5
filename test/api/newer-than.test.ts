// ?newer_than= through the facade: a client refreshes its feed with the newer_cursor it was given.
import { describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.ts';
import { rpc } from '../helpers/db.ts';
import { api } from '../helpers/http.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('GET /feed?newer_than=', () => {
  it('answers only the posts that came since the page the client shows', async () => {
    const [reader, author] = await Promise.all([createAccount('reader'), createAccount('author')]);
    await rpc(reader, 'follow', { p_username: author.username });
    await rpc(author, 'create_post', { p_body: 'shown' });
    const shown = await api('GET', '/feed', { token: reader.accessToken });
    expect(shown.body.items.map((p: { body: string }) => p.body)).toEqual(['shown']);
    await rpc(author, 'create_post', { p_body: 'since' });
    const since = await api('GET', `/feed?newer_than=${encodeURIComponent(shown.body.newer_cursor)}`, {
      token: reader.accessToken,
    });
    expect(since.status).toBe(200);
    expect(since.body.items.map((p: { body: string }) => p.body)).toEqual(['since']);
    const bad = await api('GET', '/feed?newer_than=nope', { token: reader.accessToken });
    expect(bad).toMatchObject({ status: 400, body: { error: { code: 'invalid_cursor' } } });
  });
});
