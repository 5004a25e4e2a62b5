// The README's supabase-js quick start, run as written against the test stack: only the URL and the anon key
// that `npm start` would print are put in, and the demo account it signs in as (`ben`) is made first under a
// fresh e-mail and username, since the test stack has no demo network (test/api/seed.test.ts applies it).
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { asRoot } from '../helpers/db.ts';
import { makeAccount, uniqueUsername } from '../helpers/accounts.ts';
import { uniqueEmail } from '../helpers/users.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';

// Tests run from the repository's root (npm test).
const repoRoot = process.cwd();
const marker = '<!-- supabase-js quick start: test/sdk/readme.test.ts runs this block -->';

/** The fenced block right after the marker in README.md. */
function quickStart(): string {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const after = readme.slice(readme.indexOf(marker) + marker.length);
  const block = /^\s*```js\n([\s\S]*?)\n```/.exec(after);
  if (readme.indexOf(marker) < 0 || !block) throw new Error('README.md has no supabase-js quick start block');
  return block[1];
}

describe.skipIf(!authIsRunning)('README: the supabase-js quick start', () => {
  it('runs as written and does what its comments say', async () => {
    // The demo account of `npm start`'s seed, which the test stack does not have.
    const email = uniqueEmail('ben');
    const username = uniqueUsername('ben');
    const ben = await makeAccount({ email, username, password: 'daykeeper demo' });
    // At least one public post for the anonymous page, whatever ran before.
    await asRoot`insert into public.posts (author_id, body, emotion, privacy) values (${ben.id}, 'an older post', 40, 'public')`;

    const code = quickStart()
      .replace("'http://127.0.0.1:54321'", JSON.stringify(stack.apiUrl))
      .replace("'ANON_KEY'", JSON.stringify(stack.anonKey))
      .replace("'ben@demo.daykeeper.test'", JSON.stringify(email))
      .replace(".eq('username', 'ben')", `.eq('username', ${JSON.stringify(username)})`) +
      '\nconsole.log(JSON.stringify({ posts, count, post, feed, profile, comments, status, error }));\n';
    // Beside node_modules' parent, so `import '@supabase/supabase-js'` resolves as in an app.
    const file = join(repoRoot, '.local', `readme-quick-start-${process.pid}.mjs`);
    writeFileSync(file, code);
    const { stdout } = await promisify(execFile)(process.execPath, [file], { cwd: repoRoot });
    const lines = stdout.trim().split('\n');
    expect(lines.at(-2)).toBe('404 PT404 post_not_found');
    const result = JSON.parse(lines.at(-1)!);

    // Other tests' posts come first on a shared stack: what counts is the shape, the page size and the count.
    expect(result.posts.length).toBeGreaterThan(0);
    expect(result.posts.length).toBeLessThanOrEqual(20);
    for (const item of result.posts) expect(item.author).toEqual({ username: expect.any(String), display_name: expect.any(String) });
    expect(result.count).toBeGreaterThanOrEqual(result.posts.length);
    const [row] = await asRoot`select author_id, body from public.posts where id = ${result.post.id}`;
    expect(row).toEqual({ author_id: ben.id, body: 'Hello from supabase-js' });
    expect(result.feed).toHaveProperty('items');
    expect(result.profile).toEqual({ username, followers_count: 0, following_count: 0, posts_count: 2 });
    expect(result.comments).toEqual([]);
    expect(result.error.hint).toBe('post_not_found');
  });
});
