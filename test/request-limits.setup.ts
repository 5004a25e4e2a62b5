// Vitest's global setup for the suite and the fault suite: every request of a run comes from this machine, one
// address through the gateway, and the loads read as a few accounts, so for the run the request limits
// (supabase/schemas/26_request_limits.sql) and the code e-mails' budgets per address and project
// (private.mail_limits) are raised out of reach and put back after. The limits themselves are tested with counts
// arranged for accounts and addresses of their own (test/api/request-limits.test.ts, test/api/mail-limits.test.ts).
import postgres from 'postgres';

const dbUrl = process.env.STACK_DB_URL;
let restore: (() => Promise<void>) | undefined;

export async function setup(): Promise<void> {
  if (!dbUrl) return;
  const root = postgres(dbUrl, { max: 1, onnotice: () => {} });
  // Without Supabase Auth the stack applies no app migrations (docs/OPERATIONS.md, "Known limitation: building
  // Supabase Auth"): there are no limits to raise.
  const [{ present }] = await root`select to_regclass('private.request_limits') is not null as present`;
  if (!present) {
    await root.end();
    return;
  }
  const limits = await root`select scope, max_requests from private.request_limits`;
  const mailLimits = await root`select scope, max_mails from private.mail_limits`;
  await root`update private.request_limits set max_requests = 2000000000`;
  await root`update private.mail_limits set max_mails = 2000000000`;
  restore = async () => {
    for (const l of limits) {
      await root`update private.request_limits set max_requests = ${l.max_requests} where scope = ${l.scope}`;
    }
    for (const l of mailLimits) {
      await root`update private.mail_limits set max_mails = ${l.max_mails} where scope = ${l.scope}`;
    }
    await root.end();
  };
}

export async function teardown(): Promise<void> {
  await restore?.();
}
