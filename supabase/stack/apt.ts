// Debian's packages for the servers the stack runs natively (Postgres 15, PgBouncer): installed when missing and
// we may (root with apt-get), otherwise the error says how.
import { existsSync } from 'node:fs';
import { info } from './log.ts';
import { run } from './processes.ts';

/** Installs `packages` unless every file of `provides` exists already. */
export async function ensureDebianPackages(
  what: string,
  packages: string[],
  provides: string[],
  logDir: string,
): Promise<void> {
  if (provides.every((path) => existsSync(path))) return;
  const command = `apt-get update && apt-get install -y ${packages.join(' ')}`;
  if (Deno.uid() !== 0 || !existsSync('/usr/bin/apt-get')) {
    throw new Error(`${what} is not installed. Install it with: sudo sh -c '${command}'`);
  }
  info(`${what} is missing: running ${command}`);
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  await run('apt-get-update', 'apt-get', { args: ['update'], env, logDir });
  await run('apt-get-install', 'apt-get', {
    args: ['install', '-y', '--no-install-recommends', ...packages],
    env,
    logDir,
  });
}
