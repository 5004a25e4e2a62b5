// `deno run -A supabase/tools/schema-check.ts <superuser url>` (or `schema-check` of supabase/cli/main.ts): whether
// supabase/schemas/ builds the database the migrations built in that cluster (its `postgres` database, as the
// stack made it). Prints the difference; exit 1 when there is one. test/db/schema.test.ts runs it.
import { join } from 'node:path';
import { profile, readConfig } from '../stack/config.ts';
import { buildScratch, databaseUrl, dropScratch, schemaDiff, schemaFiles } from '../stack/schema.ts';
import { exportSendEmailHook } from '../stack/stack.ts';

/** 0 when supabase/schemas/ and the migrations in `superuser`'s cluster define the same database, else 1. */
export async function schemaCheck(superuser: string | undefined): Promise<number> {
  if (!superuser) throw new Error('usage: schema-check <superuser url of a stack>');
  const test = profile('test', readConfig());
  // Run by the tests, it inherits their stack's hook; run by hand, it takes the test stack's.
  if (!Deno.env.get('SEND_EMAIL_HOOK_SECRET')) await exportSendEmailHook(test);
  const logDir = join(test.dir, 'logs');
  const scratch = await buildScratch(superuser, 'scratch_schemas', schemaFiles(), logDir);
  const diff = await schemaDiff(databaseUrl(superuser, 'postgres'), scratch);
  await dropScratch(superuser, 'scratch_schemas', logDir);
  console.log(diff ? `supabase/schemas/ differs from the migrations:\n${diff}` : 'no difference');
  return diff ? 1 : 0;
}

if (import.meta.main) Deno.exit(await schemaCheck(Deno.args[0]));
