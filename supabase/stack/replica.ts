// The streaming read replica: a second Postgres 15 cluster copied from the primary with pg_basebackup, kept as
// a hot standby that replays the primary's WAL as it streams in (a physical replication slot keeps what it has
// not yet received). The facade sends the requests that only read to it (functions/api/lib/replicas.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Profile } from './config.ts';
import { info } from './log.ts';
import {
  asClusterOwner,
  giveToClusterOwner,
  localPassword,
  pgBinDir,
  postgresService,
  profileSettings,
  queryValue,
} from './postgres.ts';
import { assertPortFree, run } from './processes.ts';
import { supervise } from './supervisor.ts';

/** The primary's replication slot for the replica. */
export const replicationSlot = 'daykeeper_replica';

/** Copies the primary into a new replica folder: a base backup that starts streaming where it ends. */
async function baseBackup(primaryUrl: string, dataDir: string, logDir: string): Promise<void> {
  // A slot left by a replica folder removed by hand would refuse the copy's new one.
  await queryValue(
    primaryUrl,
    `select pg_drop_replication_slot(slot_name) from pg_replication_slots
    where slot_name = '${replicationSlot}' and not active`,
  );
  await Deno.mkdir(dataDir, { recursive: true, mode: 0o700 });
  await giveToClusterOwner(dataDir);
  const primary = new URL(primaryUrl);
  const [command, args] = asClusterOwner(join(pgBinDir(), 'pg_basebackup'), [
    '--host',
    primary.hostname,
    '--port',
    primary.port,
    '--username',
    decodeURIComponent(primary.username),
    '--pgdata',
    dataDir,
    '--wal-method=stream',
    '--checkpoint=fast',
    '--create-slot',
    '--slot',
    replicationSlot,
    // standby.signal and primary_conninfo: the copy starts as a standby of the primary.
    '--write-recovery-conf',
  ]);
  await run('pg_basebackup', command, {
    args,
    env: { PGPASSWORD: decodeURIComponent(primary.password) || localPassword },
    logDir,
  });
}

/**
 * Starts the profile's replica under supervision (making it first when there is none, or when the primary was
 * made again since) and returns its superuser URL.
 */
export async function startReplica(profile: Profile, primaryUrl: string, logDir: string): Promise<string> {
  const port = profile.ports.replica;
  const dataDir = join(profile.dir, 'replica');
  const primaryIdFile = join(profile.dir, 'replica-of');
  assertPortFree(port, 'Postgres replica', profile.portShiftVariable);
  const primaryId = await queryValue(primaryUrl, 'select system_identifier from pg_control_system()');
  const copyOf = await Deno.readTextFile(primaryIdFile).catch(() => '');
  if (existsSync(dataDir) && copyOf !== primaryId) await Deno.remove(dataDir, { recursive: true });
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    info(`copying the primary into a streaming replica in ${dataDir}`);
    await baseBackup(primaryUrl, dataDir, logDir);
    await Deno.writeTextFile(primaryIdFile, primaryId);
  }
  await supervise(postgresService({
    name: 'replica',
    dataDir,
    port,
    socketDir: join(profile.dir, 'replica-socket'),
    // The primary keeps the rows a long read on the replica still needs, instead of the replica cancelling it. It
    // learns what the replica still needs at most once per wal_receiver_status_interval, and keeps everything newer
    // meanwhile: at the default 10 s a hot counter's dead rows and index entries piled up for seconds on the primary
    // (supabase/bench/reports/WRITES.md, "The small stack's gap, found"); every second, not for long.
    settings: ['hot_standby_feedback=on', 'wal_receiver_status_interval=1s', ...profileSettings(profile)],
  }, logDir));
  const url = new URL(primaryUrl);
  url.port = String(port);
  return url.toString();
}
