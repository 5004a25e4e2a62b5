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

  it('types every column of every table and view (none left `unknown`: see supabase/tools/database-types.ts)', () => {
    const { text } = generated.find((file) => file.path === databaseTypesFiles[0])!;
    const tables = text.slice(text.indexOf('Tables: {'), text.indexOf('Functions: {'));
    expect(tables.split('\n').filter((line) => /:\s*unknown\b/.test(line)).map((line) => line.trim())).toEqual([]);
    // All 14 tables are there, each with its Row.
    expect(tables.match(/^\s+Row: \{/gm)?.length).toBeGreaterThanOrEqual(14);
  });
});
