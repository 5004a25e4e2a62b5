// Debian's Chromium for the test that opens the API reference (test/api/docs.test.ts) in a headless browser.
// The test drives it with playwright-core, which never downloads a browser of its own.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './config.ts';
import { info, warn } from './log.ts';
import { run } from './processes.ts';

export const chromiumPath = '/usr/bin/chromium';

/** Installs Chromium when it is missing and we may (root with apt-get); otherwise says how, and the test fails. */
export async function ensureChromiumInstalled(): Promise<void> {
  if (existsSync(chromiumPath)) return;
  const logDir = join(repoRoot, '.local', 'logs');
  const command = 'apt-get update && apt-get install -y --no-install-recommends chromium';
  if (Deno.uid() !== 0 || !existsSync('/usr/bin/apt-get')) {
    warn(`Chromium is not installed, so the API reference test will fail. Install it with: sudo sh -c '${command}'`);
    return;
  }
  info(`Chromium is missing: running ${command}`);
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  await run('apt-get-update', 'apt-get', { args: ['update'], env, logDir });
  await run('apt-get-install', 'apt-get', {
    args: ['install', '-y', '--no-install-recommends', 'chromium'],
    env,
    logDir,
  });
}
