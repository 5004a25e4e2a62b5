// Where each scale keeps its seeded bench database, and what its seeding run recorded: shared by the scale
// benchmark, which seeds it, and the soak and the writes benchmark, which run on it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { localDir, type Profile, profile, readConfig } from '../stack/config.ts';
import { queryValue } from '../stack/postgres.ts';
import { type Stack, up } from '../stack/stack.ts';
import type { SeedStep } from './seed.ts';

/** Each scale keeps its own seeded database, so 1 M and 10 M can be measured in turns without seeding again. */
export function benchDirName(scale: number): string {
  return scale === 1 ? 'bench' : `bench-scale-${scale}`;
}

/** Above full size a replica would double the disk and replay every row of the seed: off unless asked for. */
export function replicaByDefault(scale: number): boolean {
  return scale <= 1;
}

/** What the seeding run recorded, so a later run knows its scale and can print its seed times. */
export interface SeedRecord {
  scale: number;
  at: string;
  steps: SeedStep[];
}

export function seedRecordFile(dir: string): string {
  return join(dir, 'seed.json');
}

/** The record of a finished seed in `dir`, or undefined when nothing was seeded there to the end. */
export async function readSeedRecord(dir: string): Promise<SeedRecord | undefined> {
  const file = seedRecordFile(dir);
  return existsSync(file) ? JSON.parse(await Deno.readTextFile(file)) : undefined;
}

/** Whether the stack's database holds the seeded network (a seed cut short may leave the accounts without it). */
export async function holdsSeededNetwork(stack: Stack): Promise<boolean> {
  return await queryValue(
    stack.superuserUrl,
    `select exists (select 1 from public.profiles where username = 'celebrity')`,
  ) === 't';
}

/**
 * The bench stack (ports +2000) on the database a seeding run left at `scale` (`bench:scale --seed-only`), for a
 * benchmark that signs callers in through Supabase Auth.
 */
export async function upKeptBench(
  scale: number,
  options: { replica: boolean; facadeV8Flags?: string[] },
): Promise<{ stack: Stack; bench: Profile; record: SeedRecord }> {
  const dirName = benchDirName(scale);
  const record = await readSeedRecord(join(localDir, dirName));
  if (!record) {
    throw new Error(
      `no seeded bench database at scale ${scale} in .local/${dirName}: seed it first with ` +
        `\`BENCH_SCALE=${scale} npm run bench:scale -- --seed-only\``,
    );
  }
  const bench = profile('bench', readConfig(), { keep: true, dirName, ...options });
  const stack = await up(bench);
  if (stack.authUnavailable) throw new Error(`the benchmark signs callers in: ${stack.authUnavailable}`);
  if (!await holdsSeededNetwork(stack)) {
    throw new Error(`the bench database in ${bench.dir} holds no seeded network: seed it again`);
  }
  return { stack, bench, record };
}
