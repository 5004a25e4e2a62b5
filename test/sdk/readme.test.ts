// The README's supabase-js quick start, run as written against the test stack: only the URL and the anon key
// that `npm start` would print are put in, and the demo account it signs in as (`ben`) is made first under a
// fresh e-mail and username, since the test stack has no demo network (test/api/seed.test.ts applies it).
import { describe, expect, it } from 'vitest';
import { asRoot } from '../helpers/db.ts';
import { makeAccount, uniqueUsername } from '../helpers/accounts.ts';
import { blockAfter, runModule } from '../helpers/doc-blocks.ts';
import { uniqueEmail } from '../helpers/users.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';

const marker = '<!-- supabase-js quick start: test/sdk/readme.test.ts runs this block -->';

describe.skipIf(!authIsRunning)('README: the supabase-js quick start', () => {
  it('runs as written and does what its comments say', async () => {
    // The demo account of `npm start`'s seed, which the test stack does not have.
    const email = uniqueEmail('ben');
    const username = uniqueUsername('ben');
    const ben = await makeAccount({ email, username, password: 'daykeeper demo' });
    // At least one public post for the anonymous page, whatever ran before.
    await asRoot`insert into public.posts (author_id, body, emotion, privacy) values (${ben.id}, 'an older post', 40, 'public')`;

    const code = blockAfter('README.md', marker)
      .replace("'http://127.0.0.1:54321'", JSON.stringify(stack.apiUrl))
      .replace("'ANON_KEY'", JSON.stringify(stack.anonKey))
      .replace("'ben@demo.daykeeper.test'", JSON.stringify(email))
      .replace(".eq('username', 'ben')", `.eq('username', ${JSON.stringify(username)})`) +
      '\nconsole.log(JSON.stringify({ posts, count, post, feed, profile, comments, status, error }));\n';
    const lines = await runModule('readme-quick-start', code);
    expect(lines.at(-2)).toBe('404 PT404 post_not_found');
    const result = JSON.parse(lines.at(-1)!);

    // Other tests' posts come first on a shared stack: what counts is the shape, the page size and the count.
    expect(result.posts.length).toBeGreaterThan(0);
    expect(result.posts.length).toBeLessThanOrEqual(20);
    for (const item of result.posts) {
      expect(item.author).toEqual({ username: expect.any(String), display_name: expect.any(String) });
    }
    expect(result.count).toBeGreaterThanOrEqual(result.posts.length);
    const [row] = await asRoot`select author_id, body from public.posts where id = ${result.post.id}`;
    expect(row).toEqual({ author_id: ben.id, body: 'Hello from supabase-js' });
    expect(result.feed).toHaveProperty('items');
    expect(result.profile).toEqual({ username, followers_count: 0, following_count: 0, posts_count: 2 });
    expect(result.comments).toEqual([]);
    expect(result.error.hint).toBe('post_not_found');
  });
});
