// Browsers on other origins (issue 52), as on a hosted project: the gateway answers the CORS preflights of
// /auth/v1, /rest/v1 and /storage/v1 itself, before any key check, as the Supabase CLI's Kong does with its
// `cors` plugin (supabase/stack/gateway.ts), and every answer it gives itself carries
// Access-Control-Allow-Origin; /functions/v1's preflight is the facade's own, and allows the headers the docs
// recommend (Idempotency-Key, X-Request-Id). Then the real thing: in headless Chromium, a page served from
// another local port runs docs/SUPABASE-JS.md's sign-up with the e-mailed code and the README's supabase-js
// quick start as written (sign-in, from(), rpc()), signs out, creates a post twice through the typed client
// with one Idempotency-Key, and reads a limit's Retry-After from PostgREST's 429, all bundled by Vite.
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeAccount, uniqueUsername } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { blockAfter } from '../helpers/doc-blocks.ts';
import { latestCode } from '../helpers/mailpit.ts';
import { serve, type Served } from '../helpers/serve.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';
import { uniqueEmail } from '../helpers/users.ts';

// Tests run from the repository's root (npm test).
const repoRoot = process.cwd();
const chromiumPath = '/usr/bin/chromium';
const origin = 'http://app.example.test:8080';

/** A preflight for `method` of `path` on the gateway, asking for `headers`, from `origin`. */
function preflight(path: string, headers: string, method = 'POST'): Promise<Response> {
  return fetch(`${stack.apiUrl}${path}`, {
    method: 'OPTIONS',
    headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': headers },
  });
}

const supabaseJsHeaders = 'apikey,authorization,content-type,prefer,x-client-info';

describe('CORS preflights through the gateway', () => {
  it('answers /auth/v1, /rest/v1 and /storage/v1 itself, without an API key, as Kong does', async () => {
    for (
      const path of [
        '/rest/v1/posts?select=id',
        '/rest/v1/rpc/feed',
        '/auth/v1/token?grant_type=password',
        '/storage/v1/object/avatars/a.png',
      ]
    ) {
      const answer = await preflight(path, supabaseJsHeaders);
      expect([path, answer.status]).toEqual([path, 200]);
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
      expect(answer.headers.get('access-control-allow-headers')).toBe(supabaseJsHeaders);
      expect(answer.headers.get('access-control-allow-methods')?.split(',')).toEqual(
        expect.arrayContaining(['GET', 'POST', 'PATCH', 'DELETE']),
      );
      expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
      expect(await answer.text()).toBe('');
    }
  });

  it('takes an OPTIONS without Origin or Access-Control-Request-Method as a request: /rest/v1 still asks for a key', async () => {
    const noMethod = await fetch(`${stack.apiUrl}/rest/v1/posts`, { method: 'OPTIONS', headers: { Origin: origin } });
    expect(noMethod.status).toBe(401);
    expect(((await noMethod.json()) as { error: { code: string } }).error.code).toBe('no_api_key');
    const noOrigin = await fetch(`${stack.apiUrl}/rest/v1/posts`, {
      method: 'OPTIONS',
      headers: { 'Access-Control-Request-Method': 'GET' },
    });
    expect(noOrigin.status).toBe(401);
    // And a preflight answered grants nothing: the request itself is refused without a key.
    const request = await fetch(`${stack.apiUrl}/rest/v1/posts?select=id`, { headers: { Origin: origin } });
    expect(request.status).toBe(401);
  });

  it("leaves /functions/v1's preflight to the function, which allows Idempotency-Key and X-Request-Id", async () => {
    const answer = await preflight(
      '/functions/v1/api/post/create',
      'authorization,content-type,idempotency-key,x-request-id',
    );
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    const allowed = answer.headers.get('access-control-allow-headers')!.toLowerCase().split(',');
    expect(allowed).toEqual(
      expect.arrayContaining([
        'authorization',
        'content-type',
        'idempotency-key',
        'x-request-id',
        'apikey',
        'x-client-info',
      ]),
    );
    // Not every header: one the API does not read is not allowed.
    expect(allowed).not.toContain('x-something-else');
    expect(answer.headers.get('access-control-max-age')).toBe('600');
  });
});

describe('every answer through the gateway may be read by a page on another origin', () => {
  it("the gateway's own refusals carry Access-Control-Allow-Origin", async () => {
    const cases: Array<[string, Record<string, string>, number, string]> = [
      ['/rest/v1/posts?select=id', {}, 401, 'no_api_key'],
      ['/rest/v1/posts?select=id', { apikey: 'not-a-key' }, 401, 'invalid_api_key'],
      ['/storage/v1/object/avatars/a.png', {}, 404, 'not_found'],
      ['/graphql/v1', {}, 404, 'not_found'],
      ['/rest/v1/posts?select=id&body=eq.%FF', { apikey: stack.anonKey }, 400, 'invalid_encoding'],
      ['/functions/v1/api/post/00000000-0000-4000-8000-000000000000%00', {}, 400, 'bad_request'],
    ];
    for (const [path, headers, status, code] of cases) {
      const answer = await fetch(`${stack.apiUrl}${path}`, { headers: { Origin: origin, ...headers } });
      const body = (await answer.json()) as { error: { code: string } };
      expect([path, answer.status, body.error.code, answer.headers.get('access-control-allow-origin')]).toEqual([
        path,
        status,
        code,
        '*',
      ]);
    }
  });

  it("the services' answers carry one Access-Control-Allow-Origin: *, the services' own replaced", async () => {
    const answers = [
      await fetch(`${stack.apiUrl}/rest/v1/posts?select=id&limit=1`, {
        headers: { Origin: origin, apikey: stack.anonKey },
      }),
      await fetch(`${stack.apiUrl}/rest/v1/rpc/nothing_here`, { headers: { Origin: origin, apikey: stack.anonKey } }),
      await fetch(`${stack.apiUrl}/auth/v1/health`, { headers: { Origin: origin } }),
      await fetch(`${stack.apiUrl}/functions/v1/api/health`, { headers: { Origin: origin } }),
    ];
    for (const answer of answers) {
      await answer.body?.cancel();
      // Headers.get joins repeated headers with ", ": one value means one header.
      expect([answer.url, answer.headers.get('access-control-allow-origin')]).toEqual([answer.url, '*']);
      expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
    }
    // PostgREST's list of what a page may read stays (Content-Range for counts, Location).
    expect(answers[0].headers.get('access-control-expose-headers')).toContain('Content-Range');
  });
});

describe.skipIf(!authIsRunning)('supabase-js and the typed client in headless Chromium, from another origin', () => {
  let browser: Browser;
  let served: Served;
  let site: string;

  beforeAll(async () => {
    if (!existsSync(chromiumPath)) {
      throw new Error(`no Chromium at ${chromiumPath}: \`npm test\` installs it, or run apt-get install chromium`);
    }
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await served?.close();
    if (site) await rm(site, { recursive: true, force: true });
  });

  it(
    'signs up with the e-mailed code, runs the quick start, signs out, and creates with an Idempotency-Key',
    async () => {
      // docs/SUPABASE-JS.md's sign-up, for a new account (its e-mailed code read by the test, as latestCode).
      const ann = { email: uniqueEmail('ann'), username: uniqueUsername('ann') };
      const signUp = blockAfter(
        'docs/SUPABASE-JS.md',
        '<!-- supabase-js sign-up: test/sdk/sign-up-docs.test.ts runs this block after the one above -->',
      )
        .replace("'http://127.0.0.1:54321'", JSON.stringify(stack.apiUrl))
        .replace("'ANON_KEY'", JSON.stringify(stack.anonKey))
        .replace("'ann@example.com'", JSON.stringify(ann.email))
        .replace("username: 'ann'", `username: ${JSON.stringify(ann.username)}`) +
        `\nawait report('sign-up', { confirmed: confirmed.session !== null, email: signedIn.user.email, me: me.username });
await supabase.auth.signOut();
await report('signed out', { session: (await supabase.auth.getSession()).data.session });\n`;

      // The README's quick start, as test/sdk/readme.test.ts runs it: the demo account `ben` made first.
      const ben = { email: uniqueEmail('ben'), username: uniqueUsername('ben') };
      const benId = (await makeAccount({ ...ben, password: 'daykeeper demo' })).id;
      await asRoot`insert into public.posts (author_id, body, emotion, privacy) values (${benId}, 'an older post', 40, 'public')`;
      const quickStart =
        blockAfter('README.md', '<!-- supabase-js quick start: test/sdk/readme.test.ts runs this block -->')
          .replace("'http://127.0.0.1:54321'", JSON.stringify(stack.apiUrl))
          .replace("'ANON_KEY'", JSON.stringify(stack.anonKey))
          .replace("'ben@demo.daykeeper.test'", JSON.stringify(ben.email))
          .replace(".eq('username', 'ben')", `.eq('username', ${JSON.stringify(ben.username)})`) +
        `\nawait report('quick start', { posts: posts.length, count, post, feed: 'items' in feed, profile, comments, status, code: error.code, hint: error.hint });
const { error: signOutError } = await supabase.auth.signOut();
const { data: after, error: anonError } = await supabase.from('posts').select('id').range(0, 0);
await report('signed out', { signOutError, session: (await supabase.auth.getSession()).data.session, anonRead: after.length, anonError });\n`;

      // The typed client (client/index.ts, as its README uses it): one create sent twice with one Idempotency-Key,
      // and an X-Request-Id of the page's own, echoed back and readable.
      const idempotent = `import { createApiClient } from ${JSON.stringify(join(repoRoot, 'client', 'index.ts'))};
const api = createApiClient(${JSON.stringify(stack.functionsUrl.replace(/\/api$/, ''))});
const login = await api.POST('/api/auth/login', { body: { login: ${
        JSON.stringify(ben.username)
      }, password: 'daykeeper demo' } });
if (!login.data) throw new Error(login.error.error.message);
const headers = {
  Authorization: \`Bearer \${login.data.session.access_token}\`,
  'Idempotency-Key': 'browser-create-1',
  'X-Request-Id': 'page-request-1',
};
const first = await api.POST('/api/post/create', { headers, body: { body: 'Hello from a browser', emotion: 60 } });
const again = await api.POST('/api/post/create', { headers, body: { body: 'Hello from a browser', emotion: 60 } });
const reused = await api.POST('/api/post/create', { headers, body: { body: 'Another post', emotion: 60 } });
await report('idempotent', {
  first: [first.response.status, first.data?.id],
  again: [again.response.status, again.data?.id],
  reused: [reused.response.status, reused.error?.error.code],
  requestId: first.response.headers.get('X-Request-Id'),
  remaining: first.response.headers.get('RateLimit-Remaining'),
});\n`;

      // A limit's 429 through PostgREST, read as a page reads it: ann is a new account, and posts until refused.
      const limits = `const rest = ${JSON.stringify(`${stack.apiUrl}/rest/v1`)};
const anonKey = ${JSON.stringify(stack.anonKey)};
const token = (await (await fetch(${JSON.stringify(`${stack.apiUrl}/auth/v1/token?grant_type=password`)}, {
  method: 'POST',
  headers: { apikey: anonKey, 'Content-Type': 'application/json' },
  body: JSON.stringify({ email: ${JSON.stringify(ann.email)}, password: 'a long passphrase' }),
})).json()).access_token;
let refused;
for (let i = 0; i < 40 && !refused; i++) {
  const answer = await fetch(\`\${rest}/posts\`, {
    method: 'POST',
    headers: { apikey: anonKey, Authorization: \`Bearer \${token}\`, 'Content-Type': 'application/json', Prefer: 'return=minimal' },
    body: JSON.stringify({ body: \`post \${i}\`, emotion: 50, privacy: 'private' }),
  });
  if (answer.status === 429) refused = answer;
  else if (answer.status !== 201) throw new Error(\`post \${i}: \${answer.status} \${await answer.text()}\`);
  else await answer.text(); // read to its end, else Chromium counts the request aborted
}
await report('limit', {
  status: refused?.status,
  code: (await refused?.json())?.hint,
  retryAfter: refused?.headers.get('Retry-After'),
  remaining: refused?.headers.get('RateLimit-Remaining'),
  reset: refused?.headers.get('RateLimit-Reset'),
});\n`;

      site = join(repoRoot, '.local', `browser-cors-${process.pid}`);
      await mkdir(site, { recursive: true });
      await writeFile(join(site, 'sign-up.js'), signUp);
      await writeFile(join(site, 'quick-start.js'), quickStart);
      await writeFile(join(site, 'idempotent.js'), idempotent);
      await writeFile(join(site, 'limits.js'), limits);
      // One after the other, each to its end; an uncaught error ends the page's run.
      await writeFile(
        join(site, 'main.js'),
        `for (const load of [() => import('./sign-up.js'), () => import('./quick-start.js'), () => import('./idempotent.js'), () => import('./limits.js')]) {
  await load();
}
await report('done', {});\n`,
      );
      await writeFile(join(site, 'index.html'), '<!doctype html><script type="module" src="/main.js"></script>');
      const out = join(site, 'dist');
      await build({
        root: site,
        configFile: false,
        logLevel: 'warn',
        build: { outDir: out, emptyOutDir: true, target: 'es2022' },
      });
      const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript' };
      served = await serve(async (request) => {
        const path = new URL(request.url).pathname;
        const file = join(out, path === '/' ? 'index.html' : path);
        if (!existsSync(file)) return new Response(null, { status: 404 }); // the browser's /favicon.ico
        return new Response(await readFile(file), {
          headers: { 'Content-Type': types[extname(file)] ?? 'application/octet-stream' },
        });
      });
      // Another origin than the gateway's: the same address, another port.
      expect(new URL(served.url).origin).not.toBe(new URL(stack.apiUrl).origin);

      const page = await browser.newPage();
      const reports: Array<[string, unknown]> = [];
      const failures: string[] = [];
      let finished = () => {};
      const done = new Promise<void>((resolve, reject) => {
        finished = resolve;
        page.on('pageerror', (error) => reject(error));
      });
      page.on('requestfailed', (request) => {
        failures.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText}`);
      });
      // Chromium logs every 4xx as a console error ("Failed to load resource: the server responded with a status
      // of 404"); what counts is a refusal by CORS ("… has been blocked by CORS policy").
      page.on('console', (message) => {
        if (message.type() === 'error' && !/the server responded with a status of/.test(message.text())) {
          failures.push(message.text());
        }
      });
      await page.exposeFunction('report', (name: string, value: unknown) => {
        reports.push([name, value]);
        if (name === 'done') finished();
      });
      await page.exposeFunction('latestCode', (email: string) => latestCode(email));
      await page.goto(served.url);
      await done;
      await page.close();

      // Nothing was blocked: no request failed (a CORS refusal is a failed request: "Failed to fetch").
      expect(failures).toEqual([]);
      const got = Object.fromEntries(reports.map(([name, value], i) => [`${i} ${name}`, value]));
      expect(got['0 sign-up']).toEqual({ confirmed: true, email: ann.email, me: ann.username });
      expect(got['1 signed out']).toEqual({ session: null });
      const quick = got['2 quick start'] as Record<string, unknown>;
      expect(quick.posts).toBeGreaterThan(0);
      expect(quick.count).toBeGreaterThanOrEqual(quick.posts as number);
      expect(quick.feed).toBe(true);
      expect(quick.profile).toEqual({ username: ben.username, followers_count: 0, following_count: 0, posts_count: 2 });
      expect(quick.comments).toEqual([]);
      expect([quick.status, quick.code, quick.hint]).toEqual([404, 'PT404', 'post_not_found']);
      const [row] = await asRoot`select author_id, body from public.posts where id = ${
        (quick.post as { id: string }).id
      }`;
      expect(row).toEqual({ author_id: benId, body: 'Hello from supabase-js' });
      const out2 = got['3 signed out'] as Record<string, unknown>;
      expect(out2).toEqual({ signOutError: null, session: null, anonRead: 1, anonError: null });

      const created = got['4 idempotent'] as Record<string, [number, string]> & Record<string, string>;
      expect(created.first[0]).toBe(201);
      expect(created.again).toEqual([201, created.first[1]]);
      expect(created.reused).toEqual([409, 'idempotency_key_reused']);
      expect(created.requestId).toBe('page-request-1');
      expect(Number(created.remaining)).toBeGreaterThanOrEqual(0);
      const [{ n }] =
        await asRoot`select count(*)::int as n from public.posts where author_id = ${benId} and body = 'Hello from a browser'`;
      expect(n).toBe(1);

      const limit = got['5 limit'] as Record<string, unknown>;
      expect([limit.status, limit.code]).toEqual([429, 'too_many_posts']);
      expect(Number(limit.retryAfter)).toBeGreaterThan(0);
      expect(limit.remaining).toBe('0');
      expect(limit.reset).toBe(limit.retryAfter);
      expect(got['6 done']).toEqual({});
    },
    120_000,
  );
});
