// The e-mailed codes: how many verifications an account's code may take, and how often a code e-mail may go
// to an account. Both are counted in the database (private.take_code_attempt, private.may_mail_code), where
// concurrent requests from any number of addresses meet the same row.
import type { Deps } from './context.ts';
import { asCaller } from './db.ts';
import { translations } from './auth-errors.ts';
import { ApiError } from './errors.ts';
import { server } from './tokens.ts';

/** The answer to a wrong, expired or voided code: Auth's own, so the three cannot be told apart. */
export function invalidCode(): ApiError {
  const [status, code, message] = translations.otp_expired;
  return new ApiError(status, code, message);
}

/** Counts a verification of a code sent to `email`; past the limit the account's codes are void: 400. */
export async function takeCodeAttempt(deps: Deps, email: string): Promise<void> {
  const [{ allowed }] = await asCaller(deps.sql, server, (tx) => tx`select private.take_code_attempt(${email}) as allowed`);
  if (!allowed) throw invalidCode();
}

export type CodeMail = 'signup' | 'recovery' | 'deletion';

/** Whether a code e-mail of `kind` may go to `email` now (once a minute per account). */
export async function mayMailCode(deps: Deps, email: string, kind: CodeMail): Promise<boolean> {
  const [{ allowed }] = await asCaller(deps.sql, server, (tx) => tx`select private.may_mail_code(${email}, ${kind}) as allowed`);
  return allowed;
}
