// The transaction pooler in front of the primary: Debian's PgBouncer, configured from `[db.pooler]` in
// supabase/config.toml (the names the Supabase CLI uses), as hosted projects put Supavisor in front of Postgres.
// The facade connects through it; Auth, PostgREST and the tests' superuser go straight to Postgres, as on a
// hosted project.
import { join } from 'node:path';
import { ensureDebianPackages } from './apt.ts';
import { type Toml } from './config.ts';
import { asClusterOwner, giveToClusterOwner, localPassword } from './postgres.ts';
import { logPath, spawnReady } from './processes.ts';
import { supervise } from './supervisor.ts';

const pgbouncerBinary = '/usr/sbin/pgbouncer';

export async function ensurePgbouncerInstalled(logDir: string): Promise<void> {
  await ensureDebianPackages('PgBouncer', ['pgbouncer'], [pgbouncerBinary], logDir);
}

/** `[db.pooler]`, with the CLI's defaults for what it leaves out. */
export function poolerSettings(config: Toml) {
  const pooler = config.db?.pooler ?? {};
  return {
    enabled: pooler.enabled !== false,
    poolMode: String(pooler.pool_mode ?? 'transaction'),
    defaultPoolSize: Number(pooler.default_pool_size ?? 20),
    maxClientConn: Number(pooler.max_client_conn ?? 100),
  };
}

interface PoolerInput {
  config: Toml;
  /** Where its configuration lives (the profile's folder). */
  dir: string;
  port: number;
  primaryPort: number;
  logDir: string;
}

function ini({ config, dir, port, primaryPort }: PoolerInput): string {
  const settings = poolerSettings(config);
  return `[databases]
* = host=127.0.0.1 port=${primaryPort}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = scram-sha-256
auth_file = ${join(dir, 'userlist.txt')}
admin_users = postgres
pool_mode = ${settings.poolMode}
default_pool_size = ${settings.defaultPoolSize}
max_client_conn = ${settings.maxClientConn}
; what drivers send at connect time that PgBouncer does not track itself
ignore_startup_parameters = extra_float_digits,search_path
; after a failed login to Postgres (it is restarting) try again within a second, not PgBouncer's 15 s
server_login_retry = 1
`;
}

/** Starts PgBouncer under supervision. */
export async function startPgbouncer(input: PoolerInput): Promise<void> {
  const dir = join(input.dir, 'pgbouncer');
  await Deno.mkdir(dir, { recursive: true });
  // The local stack's well-known password for the roles that log in through it (plain text: PgBouncer then
  // answers SCRAM itself and logs in to Postgres with it).
  await Deno.writeTextFile(
    join(dir, 'userlist.txt'),
    ['authenticator', 'postgres'].map((role) => `"${role}" "${localPassword}"`).join('\n') + '\n',
  );
  await Deno.writeTextFile(join(dir, 'pgbouncer.ini'), ini({ ...input, dir }));
  // PgBouncer refuses to run as root: as root it runs as the clusters' owner.
  await giveToClusterOwner(dir);
  const [command, args] = asClusterOwner(pgbouncerBinary, [join(dir, 'pgbouncer.ini')]);
  const ready = async () =>
    (await new Deno.Command('pg_isready', { args: ['-h', '127.0.0.1', '-p', String(input.port)], stdout: 'null' })
      .output()).success;
  await supervise({
    name: 'pgbouncer',
    logFile: logPath(input.logDir, 'pgbouncer'),
    start: () => spawnReady('pgbouncer', command, { args, logDir: input.logDir }, { what: 'PgBouncer', check: ready }),
  });
}
