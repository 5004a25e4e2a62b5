// GET /search over HTTP: the route reaches public.search as the caller (the rules are proved in
// test/db/search.test.ts), wins over /:username, and answers bad input with the documented 400s.
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/http.ts';
import { type Registered, registerAndConfirm } from '../helpers/registration.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('GET /search', () => {
  let author: Registered;
  const word = `s${crypto.randomUUID().replace(/-/g, '').slice(0, 10)}`;

  beforeAll(async () => {
    author = await registerAndConfirm(word);
    await api('POST', '/post/create', { token: author.session.access_token, json: { body: `${word} in a post` } });
  });

  it('finds users and posts, for anyone', async () => {
    const users = await api('GET', `/search?type=users&q=${word}`);
    expect(users.status).toBe(200);
    expect(users.body.items.map((u: { username: string }) => u.username)).toEqual([author.username]);
    const posts = await api('GET', `/search?type=posts&q=${encodeURIComponent(`${word.toUpperCase()} post`)}`, { token: author.session.access_token });
    expect(posts.body.items.map((p: { body: string }) => p.body)).toEqual([`${word} in a post`]);
  });

  it('answers 400 for a text too short or too long, a missing or unknown type, a bad cursor', async () => {
    expect((await api('GET', '/search?type=users&q=a')).body.error.code).toBe('search_too_short');
    expect((await api('GET', `/search?type=users&q=${'a'.repeat(101)}`)).body.error.code).toBe('search_too_long');
    expect((await api('GET', '/search?q=ann')).body.error.code).toBe('validation_failed');
    expect((await api('GET', '/search?type=comments&q=ann')).body.error.code).toBe('validation_failed');
    expect((await api('GET', '/search?type=users&q=ann&cursor=nonsense')).body.error.code).toBe('invalid_cursor');
  });
});
