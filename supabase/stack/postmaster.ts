// The postmaster serving a data folder, whoever started it. `pg_ctl restart` on the stack's cluster stops
// the postmaster the stack started and starts another, a child of pg_ctl: the stack recognises it by the
// data folder's postmaster.pid, watches it by pid and stops it with the rest, so it is never orphaned.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Running, stopProcess } from './processes.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `pid` is a running process (a zombie, dead but not yet reaped, is not). */
function isAlive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The pid of the live postmaster that holds `dataDir` (its postmaster.pid), if any. */
export function livePostmaster(dataDir: string): number | undefined {
  const file = join(dataDir, 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(Deno.readTextFileSync(file).split('\n')[0]);
  return pid > 0 && isAlive(pid) ? pid : undefined;
}

/** A postmaster the stack did not start (so cannot wait on), watched through /proc. */
export function adoptPostmaster(pid: number): Running {
  const exited = (async () => {
    while (isAlive(pid)) await sleep(250);
    return 'exited';
  })();
  // SIGINT is Postgres' fast shutdown, as for the postmaster the stack starts.
  return { pid, exited, stop: () => stopProcess(pid, 'SIGINT', exited) };
}

/**
 * After the stack's postmaster ended: the postmaster that took over `dataDir` within `graceMs` (pg_ctl
 * restart starts the new one a fraction of a second after the old one exits), or undefined.
 */
export async function successorPostmaster(
  dataDir: string,
  formerPid: number,
  graceMs = 3_000,
): Promise<number | undefined> {
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    const pid = livePostmaster(dataDir);
    if (pid !== undefined && pid !== formerPid) return pid;
    await sleep(100);
  }
  return undefined;
}
