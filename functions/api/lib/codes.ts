// The e-mailed codes: how many verifications a code may take, and how often a code e-mail may go to an
// account. Both are counted in the database (private.take_code_attempt, private.may_mail_code), where
// concurrent requests from any number of addresses meet the same rows.
import type { AuthSession } from './auth-api.ts';
import { fromAuth, translations } from './auth-errors.ts';
import type { Deps } from './context.ts';
import { queryAs } from './query.ts';
import { sql } from './sql-text.ts';
import { ApiError } from './errors.ts';
import { atLeast } from './fixed-time.ts';
import { ownProfile } from './session.ts';
import { assertMailUp } from './smtp.ts';
import { type Caller, server } from './tokens.ts';

/** How long a verification takes, whatever its outcome: above the time Auth takes to check a code. */
const verifyMs = 400;

/** The answer to a wrong, expired or voided code: Auth's own, so that they cannot be told apart. */
export function invalidCode(): ApiError {
  const [status, code, message] = translations.otp_expired;
  return new ApiError(status, code, message);
}

type CodeType = 'signup' | 'email_change' | 'recovery' | 'magiclink';

/** The count each code type's attempts go to: a magic-link (deletion) code is a recovery token in Auth. */
const attemptKinds: Record<CodeType, string> = {
  signup: 'signup',
  email_change: 'email_change',
  recovery: 'recovery',
  magiclink: 'recovery',
};

/**
 * Verifies a code with Auth, once the attempt is counted. A wrong, expired or voided code, an unknown address and
 * a banned account (which Auth refuses before the code) all get the same answer in the same time.
 */
export function verifyCode(deps: Deps, type: CodeType, email: string, code: string, clientIp?: string, userAgent?: string): Promise<AuthSession> {
  return atLeast(verifyMs, async () => {
    const [{ allowed }] = await queryAs(deps, server, sql`select private.take_code_attempt(${email}, ${attemptKinds[type]}, ${clientIp ?? ''}) as allowed`);
    if (!allowed) throw invalidCode();
    return await deps.auth.verify(type, email, code, clientIp, userAgent).catch((error) => {
      throw fromAuth(error, { user_banned: translations.otp_expired });
    });
  });
}

export type CodeMail = 'signup' | 'recovery' | 'deletion' | 'factor_recovery';

/** Whether a code e-mail of `kind` may go to `email` now (once a minute per account). */
export async function mayMailCode(deps: Deps, email: string, kind: CodeMail): Promise<boolean> {
  const [{ allowed }] = await queryAs(deps, server, sql`select private.may_mail_code(${email}, ${kind}) as allowed`);
  return allowed;
}

/**
 * E-mails the signed-in caller a one-time code (Auth's /otp) that proves their mailbox for an act of `kind`:
 * 429 within a minute of the last one, 503 when the mail server is down.
 */
export async function mailOneTimeCode(deps: Deps, caller: Caller, kind: 'deletion' | 'factor_recovery', clientIp?: string): Promise<void> {
  const profile = await ownProfile(deps, caller);
  if (!(await mayMailCode(deps, profile.email, kind))) {
    throw new ApiError(429, 'rate_limited', 'We e-mailed you a code less than a minute ago: use it, or ask again later');
  }
  await assertMailUp(deps.env);
  await deps.auth.sendCode(profile.email, clientIp).catch((error) => {
    throw fromAuth(error);
  });
}
