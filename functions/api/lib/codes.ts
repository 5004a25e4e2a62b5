// The e-mailed codes: how many verifications a code may take, and how often a code e-mail may go to an
// account. Both are counted in the database (private.take_code_attempt, and private.take_mail_slot, which
// Auth's Send Email hook asks for every code e-mail), where concurrent requests from any number of addresses
// meet the same rows.
import { AuthError, type AuthSession } from './auth-api.ts';
import { fromAuth, translations } from './auth-errors.ts';
import type { RequestDeps } from './context.ts';
import { queryAs } from './query.ts';
import { sql } from './sql-text.ts';
import { ApiError } from './errors.ts';
import { atLeast } from './fixed-time.ts';
import { ownAccount } from './session.ts';
import { giveBackMailSlot, type MailSlot, takeMailSlot } from './mail-slots.ts';
import { assertMailUp, mailUnavailable } from './smtp.ts';
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
export function verifyCode(
  deps: RequestDeps,
  type: CodeType,
  email: string,
  code: string,
  clientIp?: string,
  userAgent?: string,
): Promise<AuthSession> {
  return atLeast(verifyMs, async () => {
    const [{ allowed }] = await queryAs(
      deps,
      server,
      sql`select private.take_code_attempt(${email}, ${attemptKinds[type]}, ${clientIp ?? ''}) as allowed`,
    );
    if (!allowed) throw invalidCode();
    return await deps.auth.verify(type, email, code, clientIp, userAgent).catch((error) => {
      throw fromAuth(error, { user_banned: translations.otp_expired });
    });
  });
}

/**
 * Whether Auth refused a code e-mail as too soon or too many: its Send Email hook found no slot for it
 * (private.take_mail_slot: once a minute per account and kind, the budgets per address and project; a 429 with
 * code `unknown`), or its own interval caught it first.
 */
export function isMailRefused(error: unknown): boolean {
  return error instanceof AuthError && error.status === 429 &&
    ['unknown', 'over_email_send_rate_limit'].includes(error.code);
}

/**
 * E-mails the signed-in caller a one-time code that proves their mailbox (deleting the account, recovering from a
 * lost second factor): 429 within a minute of the last one, 503 when the mail server is down. The code is Auth's
 * magic-link token, but the e-mail is the facade's (template account_code): Auth's magic-link e-mail, which
 * Studio's "Send magic link" and supabase-js signInWithOtp ask for, is a sign-in link, not this. It takes the
 * same slot as Auth's (kind magiclink) before the token is replaced, so a refusal voids no code.
 */
export async function mailOneTimeCode(deps: RequestDeps, caller: Caller, clientIp?: string): Promise<void> {
  const profile = await ownAccount(deps, caller);
  await assertMailUp(deps.env);
  const slot: MailSlot = { userId: profile.id, kind: 'magiclink', address: clientIp ?? '', mails: 1 };
  if (await takeMailSlot(deps, slot)) {
    throw new ApiError(
      429,
      'rate_limited',
      'We e-mailed you a code less than a minute ago: use it, or ask again later',
    );
  }
  try {
    const { email_otp: code } = await deps.auth.newMagicLinkCode(profile.email);
    await deps.sendMail({ template: 'account_code', to: profile.email, fields: { Email: profile.email, Token: code } });
  } catch (error) {
    await giveBackMailSlot(deps, slot);
    if (error instanceof AuthError) throw fromAuth(error);
    if (error instanceof ApiError) throw error;
    console.error('one-time code: the mail server failed:', error instanceof Error ? error.message : error);
    throw mailUnavailable();
  }
}
