// PostgREST's schema cache follows the schema: a function created or dropped (a migration, an edit in Studio)
// is callable, then gone, through supabase-js without restarting anything (supabase/stack/bootstrap.sql's event triggers
// send NOTIFY pgrst; PostgREST reloads).
import { afterAll, describe, expect, it } from 'vitest';
import { asRoot } from '../helpers/db.ts';
import { anonSdk } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

const probe = 'schema_cache_probe';

/** The status of rpc(probe) once it equals `status`, or the last one seen after 10 s. */
async function statusOnce(status: number): Promise<number> {
  const deadline = Date.now() + 10_000;
  let seen = 0;
  while (Date.now() < deadline) {
    seen = (await anonSdk().rpc(probe as 'me')).status;
    if (seen === status) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return seen;
}

describe.skipIf(!authIsRunning)("PostgREST's schema cache", () => {
  afterAll(() => asRoot.unsafe(`drop function if exists public.${probe}()`));

  it('serves a function created after it started, and stops serving it once dropped', async () => {
    expect(await statusOnce(404)).toBe(404);
    await asRoot.unsafe(`create function public.${probe}() returns integer language sql as 'select 42'`);
    await asRoot.unsafe(`grant execute on function public.${probe}() to anon`);
    expect(await statusOnce(200)).toBe(200);
    expect((await anonSdk().rpc(probe as 'me')).data).toBe(42);
    await asRoot.unsafe(`drop function public.${probe}()`);
    expect(await statusOnce(404)).toBe(404);
  });
});
