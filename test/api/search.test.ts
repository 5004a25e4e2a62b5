// GET /search over HTTP: the route reaches public.search as the caller (the rules are proved in
// test/db/search.test.ts), wins over /:username, answers bad input with the documented 400s, and cannot be
// emptied by a flood of posts the searcher may not see.
import { beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { api } from '../helpers/http.ts';
import { registerAndConfirm, type Registered } from '../helpers/registration.ts';
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
    const posts = await api('GET', `/search?type=posts&q=${encodeURIComponent(`${word.toUpperCase()} post`)}`, {
      token: author.session.access_token,
    });
    expect(posts.body.items.map((p: { body: string }) => p.body)).toEqual([`${word} in a post`]);
  });

  it('answers 400 for a text too short or too long, a missing or unknown type, a bad cursor', async () => {
    expect((await api('GET', '/search?type=users&q=a')).body.error.code).toBe('search_too_short');
    expect((await api('GET', `/search?type=users&q=${'a'.repeat(101)}`)).body.error.code).toBe('search_too_long');
    expect((await api('GET', '/search?q=ann')).body.error.code).toBe('validation_failed');
    expect((await api('GET', '/search?type=comments&q=ann')).body.error.code).toBe('validation_failed');
    expect((await api('GET', '/search?type=users&q=ann&cursor=nonsense')).body.error.code).toBe('invalid_cursor');
  });

  it('finds a public post under 10,100 newer posts with its word that the searcher may not see', async () => {
    const flooded = `f${crypto.randomUUID().replace(/-/g, '').slice(0, 10)}`;
    await api('POST', '/post/create', {
      token: author.session.access_token,
      json: { body: `${flooded} for everyone` },
    });
    const flooder = await createAccount('flooder');
    await asRoot`
      insert into public.posts (author_id, body, privacy)
      select ${flooder.id}, ${flooded} || ' hidden ' || n, case when n % 2 = 0 then 'private' else 'close_friends' end::public.post_privacy
      from generate_series(1, 10100) n`;
    const reader = await createAccount('reader');
    for (const token of [reader.accessToken, undefined]) {
      const posts = await api('GET', `/search?type=posts&q=${flooded}`, { token });
      expect(posts.status).toBe(200);
      expect(posts.body.items.map((p: { body: string }) => p.body)).toEqual([`${flooded} for everyone`]);
    }
    const own = await api('GET', `/search?type=posts&q=${flooded}&limit=5`, { token: flooder.accessToken });
    expect(own.body.items).toHaveLength(5);
  }, 120_000);
});
