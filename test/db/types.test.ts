// The committed TypeScript types match the migrated database: regenerate them with `npm run types` when this fails.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { authIsRunning, stack } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('functions/api/database.types.ts', () => {
  it('is what `supabase gen types` makes of the migrated database', async () => {
    const { stdout } = await promisify(execFile)(
      'node_modules/.bin/supabase',
      ['gen', 'types', 'typescript', `--remote=${stack.dbUrl}?sslmode=disable`, '--schema', 'public'],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    const committed = await readFile('functions/api/database.types.ts', 'utf8');
    expect(committed, 'the types drifted from the migrations: run `npm start`, then `npm run types`').toBe(stdout);
  });
});
