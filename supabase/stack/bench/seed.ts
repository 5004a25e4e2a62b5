// Seeds the bench database with SQL (seed/*.sql), one table at a time, timing each. The triggers are off
// during the load (session_replication_role = replica: no per-row counting, no sign-up trigger, no foreign
// key checks; the files make consistent rows themselves), then seed/counters.sql sets every counter
// set-based, then VACUUM ANALYZE leaves the tables as autovacuum would (statistics, visibility map).
import { join } from 'node:path';
import { queryValue } from '../postgres.ts';
import { run } from '../processes.ts';
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
];

export interface SeedStep {
  step: string;
  rows: string;
  seconds: number;
}

async function psqlFile(superuserUrl: string, file: string, scale: number, logDir: string): Promise<void> {
  await run(`bench-seed-${file}`, 'psql', {
    args: [superuserUrl, '--quiet', '--no-psqlrc', '-v', 'ON_ERROR_STOP=1', '-v', `scale=${scale}`, '-f', join(seedDir, `${file}.sql`)],
    env: {
      PGOPTIONS: '-c session_replication_role=replica -c maintenance_work_mem=512MB -c work_mem=256MB -c synchronous_commit=off',
    },
    logDir,
  });
}

export async function seed(superuserUrl: string, scale: number, logDir: string, report: (step: SeedStep) => void): Promise<void> {
  for (const { file, tables } of steps) {
    const begin = performance.now();
    await psqlFile(superuserUrl, file, scale, logDir);
    const took = seconds(begin);
    const counts = await Promise.all(tables.map((table) => queryValue(superuserUrl, `select count(*) from ${table}`)));
    const rows = tables.map((table, i) => `${Number(counts[i]).toLocaleString('en')} ${table}`).join(', ');
    report({ step: file, rows: rows || 'every stored counter, set-based', seconds: took });
  }
  const begin = performance.now();
  await run('bench-seed-vacuum', 'psql', { args: [superuserUrl, '--quiet', '--no-psqlrc', '-c', 'vacuum analyze'], logDir });
  report({ step: 'vacuum analyze', rows: 'statistics and visibility map', seconds: seconds(begin) });
}
