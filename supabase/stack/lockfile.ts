// `npm run lock`: writes package-lock.json so that `npm ci` works on every platform. The registry this
// project's machines reach serves the platform builds of deno and of the Supabase CLI for linux-x64 only, so
// `npm install` records no other platform's optional package, and `npm ci` then refuses the lockfile
// ("Missing: @deno/darwin-arm64@ from lock file"). This adds each missing platform package by the version its
// parent pins, with its os, cpu and libc: npm skips it where they do not match, and fetches it elsewhere.
import { join } from 'node:path';
import { repoRoot } from './config.ts';

interface LockEntry {
  version?: string;
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

const npm = await new Deno.Command('npm', {
  args: ['install', '--package-lock-only', '--no-audit', '--no-fund'],
  cwd: repoRoot,
  stdout: 'inherit',
  stderr: 'inherit',
}).output();
if (!npm.success) Deno.exit(npm.code);

const file = join(repoRoot, 'package-lock.json');
const lock = JSON.parse(await Deno.readTextFile(file)) as { packages: Record<string, LockEntry> };
const added: string[] = [];
for (const parent of Object.values(lock.packages)) {
  for (const [name, version] of Object.entries(parent.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    const platform = platformOf(name);
    if (lock.packages[key] || !platform) continue;
    lock.packages[key] = { version, dev: parent.dev, optional: true, ...platform };
    added.push(`${name}@${version}`);
  }
}
await Deno.writeTextFile(file, JSON.stringify(lock, null, 2) + '\n');
console.log(added.length ? `added to the lockfile: ${added.join(', ')}` : 'the lockfile lists every platform already');
