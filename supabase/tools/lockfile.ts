// `npm run lock`: writes package-lock.json so that `npm ci` works on every platform. The registry this
// project's machines reach serves the pinned deno's and Supabase CLI's platform builds for linux-x64 only, and
// npm >= 11.15 leaves an optional package it cannot resolve out of the lockfile, then its own `npm ci` refuses
// that lockfile ("Missing: @deno/darwin-arm64@ from lock file", npm/cli#9846); older npm accepts it, but it names
// no deno build for any other platform. This adds each missing platform package by the exact version
// its parent pins, with its os, cpu and libc: npm skips it where they do not match, and fetches it elsewhere.
// npm then rewrites the lockfile once more, so that it is in npm's own order and `npm install` leaves it as is.
import { join } from 'node:path';
import { repoRoot } from '../stack/config.ts';

interface LockEntry {
  version?: string;
  integrity?: string;
  link?: boolean;
  dev?: boolean;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  optionalDependencies?: Record<string, string>;
}

/** os, cpu and libc of a platform package, from its name (`@deno/darwin-arm64`, `@supabase/cli-linux-x64-musl`). */
function platformOf(name: string): Pick<LockEntry, 'os' | 'cpu' | 'libc'> | undefined {
  const match = /(darwin|linux|win32|windows)-(arm64|x64)(?:-(glibc|musl))?$/.exec(name);
  if (!match) return undefined;
  const [, os, cpu, libc] = match;
  return {
    os: [os === 'windows' ? 'win32' : os],
    cpu: [cpu],
    ...(os === 'linux' ? { libc: [libc ?? 'glibc'] } : {}),
  };
}

async function npmLockOnly(): Promise<void> {
  const npm = await new Deno.Command('npm', {
    args: ['install', '--package-lock-only', '--no-audit', '--no-fund'],
    cwd: repoRoot,
    stdout: 'inherit',
    stderr: 'inherit',
  }).output();
  if (!npm.success) Deno.exit(npm.code);
}

await npmLockOnly();

const file = join(repoRoot, 'package-lock.json');
const lock = JSON.parse(await Deno.readTextFile(file)) as { packages: Record<string, LockEntry> };
const added: string[] = [];
for (const parent of Object.values(lock.packages)) {
  for (const [name, version] of Object.entries(parent.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    const platform = platformOf(name);
    if (lock.packages[key] || !platform) continue;
    if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) {
      throw new Error(`${name}: "${version}" is not an exact version, so the lockfile cannot name it`);
    }
    lock.packages[key] = { version, dev: parent.dev, optional: true, ...platform };
    added.push(`${name}@${version}`);
  }
}
await Deno.writeTextFile(file, JSON.stringify(lock, null, 2) + '\n');
if (added.length) await npmLockOnly();
console.log(added.length ? `added to the lockfile: ${added.join(', ')}` : 'the lockfile lists every platform already');

// Written without a previous lockfile while node_modules exists, npm takes the packages from node_modules and
// records no integrity for them, and `npm ci` would install whatever the registry serves. Only the platform
// packages this adds (the registry here has no integrity to give for them) may lack it.
const written = JSON.parse(await Deno.readTextFile(file)) as { packages: Record<string, LockEntry> };
const unverified = Object.entries(written.packages)
  .filter(([key, entry]) => key && !entry.link && !entry.integrity && !(entry.optional && platformOf(key)))
  .map(([key]) => key);
if (unverified.length) {
  console.error(
    `no integrity recorded for ${
      unverified.join(', ')
    }: restore the committed package-lock.json (or move node_modules aside) and run \`npm run lock\` again`,
  );
  Deno.exit(1);
}
