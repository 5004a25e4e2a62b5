// client/README.md's sign-in-and-post example, run as written against the test stack with Node: only the base
// URL is put in, the package's name points at client/index.ts, and the demo account it signs in as (`ana`) is
// made first under a fresh username, since the test stack has no demo network.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { makeAccount, uniqueUsername } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';
import { uniqueEmail } from '../helpers/users.ts';

// Tests run from the repository's root (npm test).
const repoRoot = process.cwd();

/**
 * The first TypeScript block under "Sign in and post", signing in as `login`, written to a file of its own: Node
 * runs TypeScript outside node_modules as it is (type stripping), as client/README.md says.
 */
function example(login: string): string {
  const readme = readFileSync(join(repoRoot, 'client', 'README.md'), 'utf8');
  const block = /## Sign in and post[\s\S]*?```ts\n([\s\S]*?)\n```/.exec(readme);
  if (!block) throw new Error('client/README.md has no sign-in-and-post example');
  const code = block[1]
    .replace("'@daykeeper/client'", JSON.stringify(join(repoRoot, 'client', 'index.ts')))
    .replace("'http://127.0.0.1:54321/functions/v1'", JSON.stringify(stack.functionsUrl.replace(/\/api$/, '')))
    .replace("login: 'ana'", `login: ${JSON.stringify(login)}`);
  const file = join(repoRoot, '.local', `client-readme-${login}.ts`);
  writeFileSync(file, code);
  return file;
}

describe.skipIf(!authIsRunning)('client/README.md: sign in and post with the typed client', () => {
  it('runs as written: the post is the account\'s, with the body and emotion it sent', async () => {
    const username = uniqueUsername('ana');
    const ana = await makeAccount({ email: uniqueEmail('ana'), username, password: 'daykeeper demo' });
    const { stdout } = await promisify(execFile)(process.execPath, [example(username)], { cwd: repoRoot });
    const [, id, day] = /^post (\S+), dated (\d{4}-\d{2}-\d{2})$/.exec(stdout.trim()) ?? [];
    expect(id).toBeDefined();
    const [row] = await asRoot`select author_id, body, emotion, day::text from public.posts where id = ${id}`;
    expect(row).toEqual({ author_id: ana.id, body: 'Hello from the typed client', emotion: 70, day });
  });

  it('stops as written where the login is refused, with the envelope\'s message', async () => {
    const run = promisify(execFile)(process.execPath, [example(uniqueUsername('nobody'))], { cwd: repoRoot });
    await expect(run).rejects.toMatchObject({ stderr: expect.stringContaining('Wrong username, e-mail or password') });
  });
});
