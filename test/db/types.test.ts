// The committed database types match the migrated database, in both places `npm run types` writes them (the client
// package's and the Edge Function's copy): regenerate them with `npm run types` when this fails.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { databaseTypesFiles } from '../../supabase/tools/database-types.ts';
import { databaseTypeFiles } from '../../supabase/tools/generated.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('the database types', () => {
  const generated = authIsRunning ? databaseTypeFiles(`${stack.dbUrl}?sslmode=disable`) : [];

  it.each(databaseTypesFiles)(
    '%s is what `supabase gen types` makes of the migrated database, formatted',
    async (path) => {
      const committed = await readFile(path, 'utf8');
      const { text } = generated.find((file) => file.path === path)!;
      expect(committed, 'the types drifted from the migrations: run `npm run types` (`npm start` running)').toBe(text);
    },
  );
});
