// Versions of the api function side by side in one benchmark run (bench:cold, bench:replica): each
// `label=revision` of a comma-separated list, its functions/api checked out of git (`label=.`: the working tree),
// and the flags its revision's stack ran it with.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../stack/config.ts';
import { facadeFlags } from '../stack/facade-command.ts';

export interface Version {
  label: string;
  revision: string;
  /** Its functions/api folder. */
  dir: string;
  /** The `deno run` flags of its revision's supabase/stack/facade-command.ts (today's where it has none). */
  flags: string[];
}

/** The flags `revision`'s stack ran the function with, its facade-command.ts written to `root` and imported. */
async function flagsOf(revision: string, root: string): Promise<string[]> {
  const source = await new Deno.Command('git', {
    args: ['show', `${revision}:supabase/stack/facade-command.ts`],
    cwd: repoRoot,
    stdout: 'piped',
    stderr: 'null',
  }).output();
  if (!source.success) return facadeFlags;
  const path = join(root, 'facade-command.ts');
  await Deno.writeFile(path, source.stdout);
  return (await import(pathToFileURL(path).href)).facadeFlags;
}

/** Each version's functions/api, checked out of git into `scratch` (the working tree's is used as it is). */
export async function checkOut(spec: string, scratch: string): Promise<Version[]> {
  const versions: Version[] = [];
  for (const [index, entry] of spec.split(',').entries()) {
    const [label, revision] = entry.split('=');
    if (!label || !revision) throw new Error(`"${entry}" is not label=revision`);
    if (revision === '.') {
      versions.push({ label, revision, dir: join(repoRoot, 'functions', 'api'), flags: facadeFlags });
      continue;
    }
    const root = join(scratch, String(index));
    Deno.mkdirSync(root);
    const archive = new Deno.Command('git', {
      args: ['archive', revision, 'functions/api'],
      cwd: repoRoot,
      stdout: 'piped',
    }).spawn();
    const untar = new Deno.Command('tar', { args: ['-x', '-C', root], stdin: 'piped' }).spawn();
    await archive.stdout.pipeTo(untar.stdin);
    if (!(await archive.status).success || !(await untar.status).success) {
      throw new Error(`cannot check out ${revision}`);
    }
    versions.push({ label, revision, dir: join(root, 'functions', 'api'), flags: await flagsOf(revision, root) });
  }
  return versions;
}
