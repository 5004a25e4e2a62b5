// The first lines of a benchmark's report: when it started, on what machine, at which commit.
import { repoRoot } from '../stack/config.ts';

/** Taken as the run starts: the date, the load average and the commit are those of the start. */
export async function startHeader(): Promise<string[]> {
  const git = (...args: string[]) =>
    new Deno.Command('git', { args, cwd: repoRoot, stdout: 'piped', stderr: 'null' }).output().then((o) =>
      new TextDecoder().decode(o.stdout).trim()
    );
  const dirty = (await git('status', '--porcelain')) ? ' (with uncommitted changes)' : '';
  const memory = Deno.systemMemoryInfo();
  return [
    `started: ${new Date().toISOString()}`,
    `machine: ${navigator.hardwareConcurrency} cores (nproc), ${(memory.total / 2 ** 30).toFixed(1)} GiB memory, ` +
    `load average at start ${
      Deno.loadavg().map((n) => n.toFixed(2)).join(' ')
    } (other processes share the cores: figures are noisy)`,
    `git: ${await git('rev-parse', '--short', 'HEAD')} on ${await git('rev-parse', '--abbrev-ref', 'HEAD')}${dirty}`,
  ];
}
