// Real faults for the tests. A server paused with SIGSTOP stays alive (the stack, which stops when one of its
// processes exits, goes on) but answers nothing: as a server that hangs, or a network that drops its packets.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { asRoot } from './db.ts';

function pidListeningOn(port: number): number {
  const line = execFileSync('ss', ['-Hltnp', `sport = :${port}`], { encoding: 'utf8' });
  const pid = /pid=(\d+)/.exec(line)?.[1];
  if (!pid) throw new Error(`no process listens on port ${port}`);
  return Number(pid);
}

/** Runs `work` while the server listening on `port` is paused. */
export async function whilePaused<T>(port: number, work: () => Promise<T>): Promise<T> {
  const pid = pidListeningOn(port);
  process.kill(pid, 'SIGSTOP');
  try {
    return await work();
  } finally {
    process.kill(pid, 'SIGCONT');
  }
}

/** An ACCESS EXCLUSIVE lock on public.posts, held by a superuser transaction until `release`. */
export async function lockPosts(): Promise<{ release: () => Promise<void> }> {
  const holder = await asRoot.reserve();
  await holder`begin`;
  await holder`lock table public.posts in access exclusive mode`;
  return {
    release: async () => {
      await holder`rollback`;
      holder.release();
    },
  };
}

/** Ends the facade's database sessions (its connections are named `api`) that wait on a lock, mid-request. */
export async function terminateFacadeBackends(): Promise<number> {
  const rows = await asRoot`
    select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'api' and wait_event_type = 'Lock'`;
  return rows.length;
}

/** What the facade's process has logged so far (the test stack's log of the `functions` process). */
export function facadeLog(): string {
  return readFileSync(join(process.env.STACK_DIR ?? '.local/test', 'logs', 'functions.log'), 'utf8');
}
