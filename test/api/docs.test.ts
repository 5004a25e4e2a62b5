// GET /docs in a real headless Chromium (Debian's, driven by playwright-core; `npm test` installs it, see
// supabase/stack/chromium.ts): the page renders every operation with nothing fetched beyond the function.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appWith } from '../helpers/app.ts';
import { serve, type Served } from '../helpers/serve.ts';

const chromiumPath = '/usr/bin/chromium';
const screenshot = 'test/output/docs.png';
// As root Chromium needs --no-sandbox; the rest keep it from reaching any service of its own.
const args = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

describe('GET /docs', () => {
  let served: Served;
  let userDataDir: string;
  let browser: BrowserContext;

  beforeAll(async () => {
    if (!existsSync(chromiumPath)) {
      throw new Error(`no Chromium at ${chromiumPath}: \`npm test\` installs it, or run apt-get install chromium`);
    }
    // The docs page needs no database: the facade in-process, over HTTP for the browser.
    served = await serve(appWith({}).fetch);
    userDataDir = await mkdtemp(join(tmpdir(), 'docs-chromium-'));
    browser = await chromium.launchPersistentContext(userDataDir, {
      executablePath: chromiumPath,
      headless: true,
      args,
      viewport: { width: 1280, height: 900 },
    });
  });

  afterAll(async () => {
    await browser?.close();
    await served?.close();
    if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
  });

  it('renders every operation in headless Chromium, fetching nothing beyond the function', async () => {
    const document = await (await fetch(`${served.url}/api/openapi.json`)).json() as { paths: Record<string, object> };
    const operations = Object.values(document.paths).flatMap((methods) => Object.keys(methods));
    // The network closed: any request that leaves the function is recorded and refused.
    const outside: string[] = [];
    await browser.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${served.url}/`)) return route.continue();
      outside.push(url);
      return route.abort();
    });

    const page = await browser.newPage();
    await page.goto(`${served.url}/api/docs`);
    expect(outside, 'the page loaded its script and styles from elsewhere').toEqual([]);
    await expect.poll(() => page.locator('.opblock').count(), { timeout: 20_000 }).toBe(operations.length);
    for (
      const summary of [
        'Create an account; Supabase Auth e-mails a 6-digit code to confirm it',
        'Sign in with a username or e-mail and the password',
        'A profile, with your relation to it when signed in',
      ]
    ) {
      expect(await page.getByText(summary, { exact: true }).isVisible(), summary).toBe(true);
    }
    await page.screenshot({ path: screenshot, fullPage: true });
    expect(outside, 'the rendered page fetched something from elsewhere').toEqual([]);
  }, 60_000);
});
