// Versions of the api function side by side in one benchmark run (bench:cold, bench:replica): each
// `label=revision` of a comma-separated list, its functions/api checked out of git (`label=.`: the working tree).
import { join } from 'node:path';
import { repoRoot } from '../stack/config.ts';

export interface Version {
  label: string;
  revision: string;
  /** Its functions/api folder. */
  dir: string;
}

/** Each version's functions/api, checked out of git into `scratch` (the working tree's is used as it is). */
export async function checkOut(spec: string, scratch: string): Promise<Version[]> {
  const versions: Version[] = [];
  for (const [index, entry] of spec.split(',').entries()) {
    const [label, revision] = entry.split('=');
    if (!label || !revision) throw new Error(`"${entry}" is not label=revision`);
    if (revision === '.') {
      versions.push({ label, revision, dir: join(repoRoot, 'functions', 'api') });
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
    versions.push({ label, revision, dir: join(root, 'functions', 'api') });
  }
  return versions;
}
