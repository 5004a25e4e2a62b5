// The faults themselves, real ones: pg_ctl on the stack's cluster, signals to the services' processes,
// pg_terminate_backend on the function's database sessions. Where the stack keeps its pids, cluster and logs
// comes from STACK_DIR (supabase/cli/main.ts).
import { execFile } from 'node:child_process';
import { chownSync, closeSync, openSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { stack } from '../../helpers/stack.ts';

const stackDir = process.env.STACK_DIR ?? '';
if (!stackDir) throw new Error('STACK_DIR is not set: run the fault suite with `npm run faults`');

const isRoot = process.getuid?.() === 0;

/** The pid the supervisor wrote for a service (supabase/stack/supervisor.ts). */
export function servicePid(name: 'postgres' | 'replica' | 'pgbouncer' | 'mailpit' | 'auth' | 'functions'): number {
  return Number(readFileSync(join(stackDir, 'run', `${name}.pid`), 'utf8'));
}

/** The pid in the cluster's own postmaster.pid: whichever postmaster serves it now. */
export function postmasterPid(): number {
  return Number(readFileSync(join(stackDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/**
 * `pg_ctl restart -m fast` on the stack's cluster, as an operator would run it: as the cluster's owner, the new
 * postmaster a child of pg_ctl, not of the stack. Resolves once the new postmaster accepts connections.
 */
export async function restartPostgres(): Promise<void> {
  const pgCtl = join(process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin', 'pg_ctl');
  const log = join(stackDir, 'logs', 'postgres-restarted.log');
  // The postmaster pg_ctl starts writes its log there as the cluster's owner.
  closeSync(openSync(log, 'a'));
  const owner = statSync(join(stackDir, 'postgres'));
  if (isRoot) chownSync(log, owner.uid, owner.gid);
  const args = ['restart', '-D', join(stackDir, 'postgres'), '-m', 'fast', '-w', '-l', log];
  const [command, commandArgs] = isRoot
    ? ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', pgCtl, ...args]]
    : [pgCtl, args];
  await promisify(execFile)(command, commandArgs);
}

/** Sends `signal` to a service's process, as the OOM killer or a crash would end it. */
export function killService(
  name: 'pgbouncer' | 'mailpit' | 'auth' | 'functions',
  signal: NodeJS.Signals = 'SIGKILL',
): number {
  const pid = servicePid(name);
  process.kill(pid, signal);
  return pid;
}

/**
 * The replica crashes: its postmaster and every process of its server killed at once (SIGKILL to its process
 * group; the stack starts each service in a session of its own). Returns the postmaster's pid.
 */
export function crashReplica(): number {
  const pid = servicePid('replica');
  process.kill(-pid, 'SIGKILL');
  return pid;
}

/** Runs `work` on a connection of its own as the superuser, closed after: no pool lives through a fault. */
export async function withDatabase<T>(work: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(stack.dbUrl, { max: 1, onnotice: () => {} });
  try {
    return await work(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * Ends every database session of the facade (it alone logs in as `authenticator`): those in the middle of a
 * transaction, and idle ones its pool would hand out next. Returns how many were ended, and of those how many
 * were inside a transaction.
 */
export async function terminateFunctionBackends(sql: postgres.Sql): Promise<{ ended: number; inTransaction: number }> {
  const [row] = await sql`
    select count(*) filter (where pg_terminate_backend(pid))::int as ended,
      count(*) filter (where xact_start is not null)::int as in_transaction
    from pg_stat_activity
    where usename = 'authenticator' and backend_type = 'client backend' and pid <> pg_backend_pid()`;
  return { ended: row.ended, inTransaction: row.in_transaction };
}
