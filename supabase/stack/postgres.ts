// Postgres 15 for the local stack: a private cluster under .local/<profile>/postgres, created with initdb
// and served on loopback, then made to look like hosted Supabase by supabase/stack/bootstrap.sql.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDebianPackages } from './apt.ts';
import { info } from './log.ts';
import { adoptPostmaster, livePostmaster, successorPostmaster } from './postmaster.ts';
import { assertPortFree, logPath, run, type Running, spawnReady, waitFor } from './processes.ts';
import { type Service, supervise } from './supervisor.ts';
import { type Profile, repoRoot } from './config.ts';

/** The local stack's well-known password, as with `supabase start`; every server listens on 127.0.0.1 only. */
export const localPassword = 'postgres';

const debianBinDir = '/usr/lib/postgresql/15/bin';
const isRoot = Deno.uid() === 0;

/** The folder of the Postgres 15 server binaries (and pgbench). */
export function pgBinDir(): string {
  return Deno.env.get('PG_BIN') ?? debianBinDir;
}

/** Where Debian's Postgres 15 keeps the RUM extension (the index that searches posts newest first; hosted Supabase has it too). */
const rumControlFile = '/usr/share/postgresql/15/extension/rum.control';

/** Debian's Postgres 15 (server, client and pgbench) and its RUM extension, unless PG_BIN names another build. */
export async function ensurePostgresInstalled(logDir: string): Promise<void> {
  if (Deno.env.get('PG_BIN')) {
    if (!existsSync(join(pgBinDir(), 'postgres')) || !existsSync('/usr/bin/psql')) {
      throw new Error(`no Postgres server in PG_BIN (${pgBinDir()}), or no psql`);
    }
    return;
  }
  await ensureDebianPackages('Postgres 15 and RUM', ['postgresql-15', 'postgresql-client-15', 'postgresql-15-rum'], [
    join(debianBinDir, 'postgres'),
    '/usr/bin/psql',
    rumControlFile,
  ], logDir);
}

/** initdb refuses to run as root, so as root the cluster belongs to the `postgres` OS user. */
export function asClusterOwner(command: string, args: string[]): [string, string[]] {
  if (!isRoot) return [command, args];
  return ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', command, ...args]];
}

export async function giveToClusterOwner(path: string): Promise<void> {
  if (isRoot) await run('chown', 'chown', { args: ['-R', 'postgres:postgres', path], logDir: '/tmp' });
}

async function initCluster(dataDir: string, logDir: string): Promise<void> {
  await Deno.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const passwordFile = join(dataDir, '..', 'initdb-password');
  await Deno.writeTextFile(passwordFile, localPassword);
  await giveToClusterOwner(join(dataDir, '..'));
  const [command, args] = asClusterOwner(join(pgBinDir(), 'initdb'), [
    '--pgdata',
    dataDir,
    '--username',
    'postgres',
    `--pwfile=${passwordFile}`,
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '--encoding=UTF8',
    '--locale=C.UTF-8',
    '--no-instructions',
  ]);
  try {
    await run('initdb', command, { args, logDir });
  } finally {
    await Deno.remove(passwordFile);
  }
}

/**
 * Server settings of the profile's clusters, the replica's too (a standby refuses to start with fewer
 * connections than its primary): the scale benchmark runs pgbench with 64 clients beside the stack's own pools,
 * and Postgres allows 100 by default.
 */
export function profileSettings(profile: Profile): string[] {
  return profile.name === 'bench' ? ['max_connections=200'] : [];
}

/** Starts the profile's cluster (creating it on first use) under supervision and returns a superuser URL. */
export async function startPostgres(profile: Profile, logDir: string): Promise<string> {
  const port = profile.ports.db;
  const dataDir = join(profile.dir, 'postgres');
  assertPortFree(port, 'Postgres', profile.portShiftVariable);
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    info(`creating a Postgres cluster in ${dataDir}`);
    await initCluster(dataDir, logDir);
  }
  await supervise(
    postgresService({
      name: 'postgres',
      dataDir,
      port,
      socketDir: join(profile.dir, 'postgres-socket'),
      settings: profileSettings(profile),
    }, logDir),
  );
  return `postgresql://postgres:${localPassword}@127.0.0.1:${port}/postgres`;
}

export interface Cluster {
  /** The service's name, in the logs and the supervisor's messages. */
  name: string;
  dataDir: string;
  port: number;
  socketDir: string;
  /** More `-c name=value` settings for the server. */
  settings?: string[];
}

/**
 * Postgres as a supervised service. Restarted by someone else (pg_ctl restart), its successor is adopted;
 * stopping it stops whatever postmaster holds the data folder, so none is left running after the stack.
 */
export function postgresService({ name, dataDir, port, socketDir, settings = [] }: Cluster, logDir: string): Service {
  const ready = {
    what: name === 'postgres' ? 'Postgres' : `Postgres (${name})`,
    check: async () =>
      (await new Deno.Command('pg_isready', { args: ['-h', '127.0.0.1', '-p', String(port)] }).output()).success,
  };
  const withDataDirStop = (running: Running): Running => ({
    ...running,
    stop: async () => {
      await running.stop();
      const other = livePostmaster(dataDir);
      if (other !== undefined) await adoptPostmaster(other).stop();
    },
  });
  const adopt = async (pid: number) => {
    await waitFor(ready.what, ready.check);
    return withDataDirStop(adoptPostmaster(pid));
  };
  return {
    name,
    logFile: logPath(logDir, name),
    async start() {
      // A postmaster already serving the folder (started by pg_ctl while the stack was restarting it) is taken over.
      const running = livePostmaster(dataDir);
      if (running !== undefined) return adopt(running);
      await Deno.mkdir(socketDir, { recursive: true });
      await giveToClusterOwner(socketDir);
      const [command, args] = asClusterOwner(join(pgBinDir(), 'postgres'), [
        '-D',
        dataDir,
        '-p',
        String(port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        `unix_socket_directories=${socketDir}`,
        ...settings.flatMap((setting) => ['-c', setting]),
      ]);
      return withDataDirStop(await spawnReady(name, command, { args, logDir, stopSignal: 'SIGINT' }, ready));
    },
    async successor(ended) {
      const pid = await successorPostmaster(dataDir, ended.pid);
      return pid === undefined ? undefined : adopt(pid);
    },
  };
}

/** Applies supabase/stack/bootstrap.sql (idempotent) with the passwords the API and Auth roles log in with. */
export async function bootstrapDatabase(superuserUrl: string, logDir: string): Promise<void> {
  const password = decodeURIComponent(new URL(superuserUrl).password) || localPassword;
  await run('bootstrap', 'psql', {
    args: [
      superuserUrl,
      '--quiet',
      '--no-psqlrc',
      '-v',
      `authenticator_password=${password}`,
      '-v',
      `auth_admin_password=${password}`,
      '-f',
      join(repoRoot, 'supabase', 'stack', 'bootstrap.sql'),
    ],
    logDir,
  });
}

/** The first column of the first row `sql` returns, as text ('' when none). */
export async function queryValue(url: string, sql: string): Promise<string> {
  const output = await new Deno.Command('psql', {
    args: [url, '--quiet', '--no-psqlrc', '--tuples-only', '--no-align', '-v', 'ON_ERROR_STOP=1', '-c', sql],
    stdin: 'null',
    stderr: 'piped',
  }).output();
  if (!output.success) throw new Error(`psql: ${new TextDecoder().decode(output.stderr).trim()}`);
  return new TextDecoder().decode(output.stdout).trim();
}

/** The same database as another role (the roles share the superuser's password locally). */
export function roleUrl(superuserUrl: string, role: string): string {
  const url = new URL(superuserUrl);
  url.username = role;
  return url.toString();
}
