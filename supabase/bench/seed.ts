// Seeds the bench database with SQL (seed/*.sql), one table at a time, timing each. The load runs as a bulk
// load would: triggers off (session_replication_role = replica: no per-row counting, no sign-up trigger, no
// foreign key checks; the files make consistent rows themselves), rows in primary-key order, the secondary
// indexes dropped first and built again at the end from their own definitions, checkpoints spaced out.
// Then seed/counters.sql sets every counter set-based and seed/feed_sources.sql the feed's sources, posts are
// put back in time order (CLUSTER), and VACUUM ANALYZE leaves the tables as autovacuum would (statistics,
// visibility map).
import { join } from 'node:path';
import { queryValue } from '../stack/postgres.ts';
import { run } from '../stack/processes.ts';
import { seconds } from './stats.ts';

const seedDir = join(import.meta.dirname!, 'seed');

/** Each file, and the tables whose rows it makes (counted afterwards for the report). */
const steps: Array<{ file: string; tables: string[] }> = [
  { file: 'users', tables: ['auth.users', 'public.profiles'] },
  { file: 'posts', tables: ['public.posts'] },
  { file: 'post_likes', tables: ['public.post_likes'] },
  { file: 'follows', tables: ['public.follows'] },
  { file: 'comments', tables: ['public.comments'] },
  { file: 'close_friends_and_blocks', tables: ['public.close_friends', 'public.blocks'] },
  { file: 'counters', tables: [] },
  { file: 'feed_sources', tables: ['private.feed_sources'] },
];

/** The indexes of the loaded tables that back no constraint (primary and unique keys stay: keys refer to them). */
const secondaryIndexes = `
  from pg_index i
  where i.indrelid = any (array['public.profiles', 'public.posts', 'public.post_likes', 'public.follows',
      'public.comments', 'public.close_friends', 'public.blocks', 'private.feed_sources']::regclass[])
    and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)`;

export interface SeedStep {
  step: string;
  rows: string;
  seconds: number;
}

function psql(superuserUrl: string, name: string, args: string[], logDir: string): Promise<void> {
  return run(`bench-seed-${name}`, 'psql', {
    args: [superuserUrl, '--quiet', '--no-psqlrc', '-v', 'ON_ERROR_STOP=1', ...args],
    env: {
      PGOPTIONS:
        '-c session_replication_role=replica -c maintenance_work_mem=512MB -c work_mem=256MB -c synchronous_commit=off',
    },
    logDir,
  });
}

async function timed(
  report: (step: SeedStep) => void,
  step: string,
  rows: () => Promise<string> | string,
  work: () => Promise<void>,
) {
  const begin = performance.now();
  await work();
  const took = seconds(begin);
  report({ step, rows: await rows(), seconds: took });
}

export async function seed(
  superuserUrl: string,
  scale: number,
  logDir: string,
  report: (step: SeedStep) => void,
): Promise<void> {
  // Each command on its own: ALTER SYSTEM and VACUUM refuse to run in the transaction of a multi-statement string.
  const sql = (name: string, ...commands: string[]) =>
    psql(superuserUrl, name, commands.flatMap((c) => ['-c', c]), logDir);
  const names = await queryValue(
    superuserUrl,
    `select string_agg(i.indexrelid::regclass::text, ', ') ${secondaryIndexes}`,
  );
  const definitions = await queryValue(
    superuserUrl,
    `select string_agg(pg_get_indexdef(i.indexrelid), E';\\n') || ';' ${secondaryIndexes}`,
  );
  await sql('drop-indexes', `drop index ${names}`);
  await sql('wal', `alter system set max_wal_size = '20GB'`, 'select pg_reload_conf()');
  try {
    for (const { file, tables } of steps) {
      const rows = async () => {
        const counts = await Promise.all(
          tables.map((table) => queryValue(superuserUrl, `select count(*) from ${table}`)),
        );
        return tables.map((table, i) => `${Number(counts[i]).toLocaleString('en')} ${table}`).join(', ') ||
          'every stored counter, set-based';
      };
      await timed(
        report,
        file,
        rows,
        () => psql(superuserUrl, file, ['-v', `scale=${scale}`, '-f', join(seedDir, `${file}.sql`)], logDir),
      );
    }
    const count = names.split(', ').length;
    await timed(
      report,
      'indexes',
      () => `${count} secondary indexes built again`,
      () => sql('create-indexes', definitions),
    );
  } finally {
    await sql('wal', 'alter system reset max_wal_size', 'select pg_reload_conf()');
  }
  // The bulk counter update moved every post to a new place; a live network writes posts in time order and
  // changes their counters in place (fillfactor 90: supabase/schemas/04_posts.sql), so its table is in time order.
  await timed(
    report,
    'cluster posts',
    () => 'public.posts in time order, as written',
    () => sql('cluster', 'cluster public.posts using posts_created_idx'),
  );
  await timed(report, 'vacuum analyze', () => 'statistics and visibility map', () => sql('vacuum', 'vacuum analyze'));
}
