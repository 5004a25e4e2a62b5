// A password-reset code, asked for as its owner would: Auth sends an account at most one recovery e-mail per
// `max_frequency` (a second within it is answered 200 by the facade and sends nothing), so this waits that
// interval out from the last recovery e-mail Auth recorded, rather than hoping the test was slow enough.
import { expect } from 'vitest';
import { asRoot } from './db.ts';
import { api } from './http.ts';
import { latestCode } from './mailpit.ts';

/** The test stack's `max_frequency` (supabase/stack/stack.ts): one recovery e-mail an account a second. */
export const recoveryIntervalMs = 1000;

/** Waits until Auth would send the account another recovery e-mail (its last one `recovery_sent_at`). */
export async function waitOutRecoveryInterval(userId: string): Promise<void> {
  const [{ sentAt }] = await asRoot`select recovery_sent_at as "sentAt" from auth.users where id = ${userId}`;
  const wait = sentAt ? sentAt.getTime() + recoveryIntervalMs + 50 - Date.now() : 0;
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

/** A fresh password-reset code for the account, read from its mailbox (the hook's minute slot freed first). */
export async function resetCode(account: { id: string; email: string }): Promise<string> {
  await asRoot`delete from private.code_mails where user_id = ${account.id}`;
  await waitOutRecoveryInterval(account.id);
  const since = new Date();
  expect((await api('POST', '/auth/forget_password', { json: { email: account.email } })).status).toBe(200);
  return await latestCode(account.email, since);
}
