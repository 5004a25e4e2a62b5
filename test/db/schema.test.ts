// supabase/schemas/ is the schema's one readable truth; supabase/migrations/ is what deploys it. Both must
// build the same database: a change to one without the other (or without `npm run db:diff`) fails here.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { authIsRunning, stack } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('the declarative schema', () => {
  it('builds exactly the database the migrations build (supabase db diff is empty)', () => {
    // The stack's own check: a scratch database from supabase/schemas/ against the stack's, from the migrations.
    const check = spawnSync('node_modules/.bin/deno', [
      'run',
      '--allow-all',
      'supabase/tools/schema-check.ts',
      stack.dbUrl,
    ], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(check.stdout.trim()).toBe('no difference');
    expect(check.status).toBe(0);
  }, 130_000);
});
