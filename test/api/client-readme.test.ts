// client/README.md's sign-in-and-post example, run where apps run it, against the package as `npm pack` makes it
// (its prepack builds dist/ with the pinned tsc) installed from the tarball into a scratch app outside the
// repository: with Node 22 as TypeScript (type stripping), compiled by tsc then run by Node, and bundled by Vite
// into a page of headless Chromium. Only the base URL and the login are put in; the demo account it signs in as
// (`ana`) is made first under a fresh username, since the test stack has no demo network. Vite is the bundler
// because vitest already runs on it: a direct dev dependency pinned at the version the lockfile had, no new package.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { promisify } from 'node:util';
import { type Browser, chromium } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeAccount, uniqueUsername } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { serve, type Served } from '../helpers/serve.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';
import { uniqueEmail } from '../helpers/users.ts';

const run = promisify(execFile);
// Tests run from the repository's root (npm test).
const repoRoot = process.cwd();
const chromiumPath = '/usr/bin/chromium';

/** The first TypeScript block under "Sign in and post", with the test stack's base URL, signing in as `login`. */
async function example(login: string): Promise<string> {
  const readme = await readFile(join(repoRoot, 'client', 'README.md'), 'utf8');
  const block = /## Sign in and post[\s\S]*?```ts\n([\s\S]*?)\n```/.exec(readme);
  if (!block) throw new Error('client/README.md has no sign-in-and-post example');
  return block[1]
    .replace("'http://127.0.0.1:54321/functions/v1'", JSON.stringify(stack.functionsUrl.replace(/\/api$/, '')))
    .replace("login: 'ana'", `login: ${JSON.stringify(login)}`);
}

/** ana under a fresh username, with the README's password. */
async function freshAna(): Promise<{ id: string; username: string }> {
  const username = uniqueUsername('ana');
  return { username, ...await makeAccount({ email: uniqueEmail('ana'), username, password: 'daykeeper demo' }) };
}

/** The post the example printed, as the database holds it. */
async function printedPost(stdout: string) {
  const [, id, day] = /^post (\S+), dated (\d{4}-\d{2}-\d{2})$/.exec(stdout.trim()) ?? [];
  expect(id, `the example printed ${stdout}`).toBeDefined();
  const [row] = await asRoot`select author_id, body, emotion, day::text from public.posts where id = ${id}`;
  return { row, day };
}

describe.skipIf(!authIsRunning)('client/README.md: sign in and post with the packed client', () => {
  let app: string;
  let tarball: string;

  beforeAll(async () => {
    app = await mkdtemp(join(tmpdir(), 'client-app-'));
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', app], {
      cwd: join(repoRoot, 'client'),
    });
    tarball = join(app, (JSON.parse(stdout) as { filename: string }[])[0].filename);
    await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'scratch-app', private: true, type: 'module' }));
    // The tarball and its one dependency; npm's cache (filled by the repository's `npm ci`) spares the registry.
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], { cwd: app });
  }, 120_000);

  afterAll(async () => {
    if (app) await rm(app, { recursive: true, force: true });
  });

  it('packs JavaScript with declarations, exported by its package.json', async () => {
    const { stdout } = await run('tar', ['-xzOf', tarball, 'package/package.json']);
    expect(JSON.parse(stdout).exports).toEqual({ '.': { types: './dist/index.d.ts', default: './dist/index.js' } });
    const { stdout: files } = await run('tar', ['-tzf', tarball]);
    expect(files.split('\n').filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([]);
  });

  it('runs as written with Node 22, as TypeScript (type stripping)', async () => {
    const ana = await freshAna();
    await writeFile(join(app, 'stripped.ts'), await example(ana.username));
    const { row, day } = await printedPost((await run(process.execPath, ['stripped.ts'], { cwd: app })).stdout);
    expect(row).toEqual({ author_id: ana.id, body: 'Hello from the typed client', emotion: 70, day });
  });

  it('compiles with tsc, and Node runs the JavaScript', async () => {
    const ana = await freshAna();
    await writeFile(join(app, 'compiled.ts'), await example(ana.username));
    // An app's strict settings, checking the package's declarations too (no skipLibCheck).
    await writeFile(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          strict: true,
          lib: ['es2022', 'dom'],
          types: [],
          outDir: 'out',
        },
        files: ['compiled.ts'],
      }),
    );
    await run(join(repoRoot, 'node_modules', '.bin', 'tsc'), ['-p', '.'], { cwd: app });
    const { row, day } = await printedPost(
      (await run(process.execPath, [join('out', 'compiled.js')], { cwd: app })).stdout,
    );
    expect(row).toEqual({ author_id: ana.id, body: 'Hello from the typed client', emotion: 70, day });
  }, 60_000);

  describe('bundled by Vite, in headless Chromium', () => {
    let served: Served;
    let browser: Browser;

    beforeAll(async () => {
      if (!existsSync(chromiumPath)) {
        throw new Error(`no Chromium at ${chromiumPath}: \`npm test\` installs it, or run apt-get install chromium`);
      }
      browser = await chromium.launch({
        executablePath: chromiumPath,
        headless: true,
        args: ['--no-sandbox', '--disable-gpu'],
      });
    });

    afterAll(async () => {
      await browser?.close();
      await served?.close();
    });

    it('runs as written: the page prints the post', async () => {
      const ana = await freshAna();
      const site = join(app, 'site');
      await writeFile(join(app, 'bundled.ts'), await example(ana.username));
      await writeFile(join(app, 'index.html'), '<!doctype html><script type="module" src="/bundled.ts"></script>');
      await build({ root: app, configFile: false, logLevel: 'warn', build: { outDir: site, emptyOutDir: true } });
      const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript' };
      served = await serve(async (request) => {
        const path = new URL(request.url).pathname;
        const file = join(site, path === '/' ? 'index.html' : path);
        if (!existsSync(file)) return new Response(null, { status: 404 }); // the browser's /favicon.ico
        return new Response(await readFile(file), {
          headers: { 'Content-Type': types[extname(file)] ?? 'application/octet-stream' },
        });
      });

      const page = await browser.newPage();
      const printed = new Promise<string>((resolve, reject) => {
        page.on('console', (message) => message.text().startsWith('post ') && resolve(message.text()));
        page.on('pageerror', reject);
      });
      await page.goto(served.url);
      const { row, day } = await printedPost(await printed);
      expect(row).toEqual({ author_id: ana.id, body: 'Hello from the typed client', emotion: 70, day });
    }, 60_000);
  });

  it("stops as written where the login is refused, with the envelope's message", async () => {
    await writeFile(join(app, 'refused.ts'), await example(uniqueUsername('nobody')));
    const refused = run(process.execPath, ['refused.ts'], { cwd: app });
    await expect(refused).rejects.toMatchObject({
      stderr: expect.stringContaining('Wrong username, e-mail or password'),
    });
  });
});
