// Where each scale keeps its seeded bench database, and what its seeding run recorded: shared by the scale
// benchmark, which seeds it, and the soak, which runs on it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { SeedStep } from './seed.ts';

/** Each scale keeps its own seeded database, so 1 M and 10 M can be measured in turns without seeding again. */
export function benchDirName(scale: number): string {
  return scale === 1 ? 'bench' : `bench-scale-${scale}`;
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
