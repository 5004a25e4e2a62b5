// The Go-built servers of the local stack, built once into .local/bin and reused: Supabase Auth at a pinned
// commit, and Mailpit at the version pinned by supabase/stack/go/go.mod.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { binDir, repoRoot } from './config.ts';
import { info } from './log.ts';
import { run } from './processes.ts';

/** Supabase Auth v2.189.0: the newest release whose go.mod has no `replace`, so `go install` can build it. */
export const authModule = 'github.com/supabase/auth';
export const authCommit = '4fa66ba71d8c55b5c95cd5635766ed8bbae6d96a';
export const authVersion = 'v2.189.0';

const toolsDir = join(repoRoot, 'supabase', 'stack', 'go');

export type Binary = { path: string } | { error: string };

async function hasGo(): Promise<boolean> {
  try {
    return (await new Deno.Command('go', { args: ['version'], stdout: 'null', stderr: 'null' }).output()).success;
  } catch {
    return false;
  }
}

const noGo =
  'Go 1.25 or newer is needed once to build Supabase Auth and Mailpit (the result is cached in .local/bin). ' +
  'Install Go, or set SUPABASE_AUTH_BIN and MAILPIT_BIN to binaries you built.';

/** A binary is rebuilt only when the pin it was built from changes. */
async function cached(name: string, pin: string, build: () => Promise<void>): Promise<string> {
  const path = join(binDir, name);
  const stamp = `${path}.pin`;
  if (existsSync(path) && (await Deno.readTextFile(stamp).catch(() => '')) === pin) return path;
  if (!(await hasGo())) throw new Error(noGo);
  await Deno.mkdir(binDir, { recursive: true });
  const begin = performance.now();
  info(`building ${name} with Go (only the first time; this takes a few minutes)…`);
  await build();
  info(`built ${name} in ${((performance.now() - begin) / 1000).toFixed(0)} s`);
  await Deno.writeTextFile(stamp, pin);
  return path;
}

const goEnv = { CGO_ENABLED: '0', GOBIN: binDir, GOFLAGS: '-buildvcs=false' };

export async function mailpitBinary(logDir: string): Promise<string> {
  const override = Deno.env.get('MAILPIT_BIN');
  if (override) return override;
  const pin = await Deno.readTextFile(join(toolsDir, 'go.sum'));
  return cached('mailpit', pin, () =>
    run('build-mailpit', 'go', {
      args: ['build', '-o', join(binDir, 'mailpit'), 'github.com/axllent/mailpit'],
      cwd: toolsDir,
      env: goEnv,
      logDir,
    }));
}

/** Where `go install` puts binaries: GOBIN, else GOPATH/bin. */
async function goInstallDir(): Promise<string | undefined> {
  try {
    const output = await new Deno.Command('go', { args: ['env', 'GOBIN', 'GOPATH'], stderr: 'null' }).output();
    const [gobin, gopath] = new TextDecoder().decode(output.stdout).split('\n').map((line) => line.trim());
    return gobin || (gopath ? join(gopath.split(':')[0], 'bin') : undefined);
  } catch {
    return undefined;
  }
}

/** Whether `path` is a Go binary of the Supabase Auth module (read from its build information). */
async function isSupabaseAuth(path: string): Promise<boolean> {
  try {
    const output = await new Deno.Command('go', { args: ['version', '-m', path], stderr: 'null' }).output();
    return /^\s+path\s+github\.com\/supabase\/auth$/m.test(new TextDecoder().decode(output.stdout));
  } catch {
    return false;
  }
}

/**
 * Supabase Auth, the real server: the binary SUPABASE_AUTH_BIN names; else one already installed where
 * `go install` puts binaries (checked to be github.com/supabase/auth); else one built here at the pinned commit
 * and cached in .local/bin. When none can be had (no Go, or the module proxy refuses the pinned commit) the
 * error is returned, not thrown: the stack then runs without Auth and says so.
 */
export async function authBinary(logDir: string): Promise<Binary> {
  const override = Deno.env.get('SUPABASE_AUTH_BIN');
  if (override) return { path: override };
  const installDir = await goInstallDir();
  const installed = installDir ? join(installDir, 'auth') : undefined;
  if (installed && existsSync(installed) && await isSupabaseAuth(installed)) return { path: installed };
  try {
    const path = await cached('auth', authCommit, () =>
      run('build-auth', 'go', {
        args: [
          'install',
          '-ldflags',
          `-X ${authModule}/internal/utilities.Version=${authVersion}`,
          `${authModule}@${authCommit}`,
        ],
        env: goEnv,
        logDir,
      }));
    return { path };
  } catch (error) {
    return { error: (error as Error).message };
  }
}
