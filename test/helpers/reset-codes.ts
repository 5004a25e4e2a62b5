// Code e-mails asked for as their owner would. Auth sends an account at most one e-mail of a kind per `max_frequency`
// (the test stack's: a second; supabase/stack/stack.ts) and drops or refuses a second within it, so a test that
// asks for another waits that interval out from the last e-mail Auth recorded, rather than hoping it was slow enough.
import { expect } from 'vitest';
import { asRoot } from './db.ts';
import { api } from './http.ts';
import { latestCode } from './mailpit.ts';

/** The test stack's `max_frequency`, in seconds. */
const mailIntervalSeconds = 1;

/**
 * Waits until Auth would send the account (by id or e-mail) another e-mail of any kind: a second past the newest of
 * the times Auth records its e-mails at, by the database's clock.
 */
export async function waitOutMailInterval(account: { id: string } | { email: string }): Promise<void> {
  const where = 'id' in account ? asRoot`u.id = ${account.id}` : asRoot`u.email = ${account.email}`;
  const [row] = await asRoot`
    select greatest(0, extract(epoch from greatest(u.confirmation_sent_at, u.recovery_sent_at, u.email_change_sent_at,
      u.reauthentication_sent_at) + make_interval(secs => ${
    mailIntervalSeconds + 0.05
  }) - clock_timestamp()) * 1000) as wait
    from auth.users u where ${where}`;
  const wait = Number(row?.wait ?? 0);
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

/** A fresh password-reset code for the account, read from its mailbox (the hook's minute slot freed first). */
export async function resetCode(account: { id: string; email: string }): Promise<string> {
  await asRoot`delete from private.code_mails where user_id = ${account.id}`;
  await waitOutMailInterval(account);
  const since = new Date();
  expect((await api('POST', '/auth/forget_password', { json: { email: account.email } })).status).toBe(200);
  return await latestCode(account.email, since);
}
