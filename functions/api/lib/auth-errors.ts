// Supabase Auth's error codes, translated into the facade's: never leaked raw, never a 500.
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { AuthError } from './auth-api.ts';
import type { RequestDeps } from './context.ts';
import { queryAs } from './query.ts';
import { sql } from './sql-text.ts';
import { ApiError } from './errors.ts';
import { mailUnavailable } from './smtp.ts';
import { server } from './tokens.ts';

export const translations: Record<string, [ContentfulStatusCode, string, string]> = {
  weak_password: [400, 'weak_password', 'The password is too weak: use at least 8 characters'],
  same_password: [400, 'same_password', 'The new password must differ from the current one'],
  email_address_invalid: [400, 'invalid_email', 'The e-mail address is not valid'],
  validation_failed: [400, 'validation_failed', 'Invalid request'],
  otp_expired: [
    400,
    'invalid_code',
    'The code is wrong or has expired; after too many wrong tries it stops working: ask for a new one',
  ],
  current_password_required: [400, 'current_password_required', 'Give current_password to change the password'],
  current_password_invalid: [401, 'wrong_password', 'The current password is wrong'],
  invalid_credentials: [401, 'invalid_credentials', 'Wrong username, e-mail or password'],
  email_not_confirmed: [
    403,
    'email_not_confirmed',
    'Confirm your e-mail first: enter the code we sent, or ask for a new one',
  ],
  user_banned: [403, 'user_banned', 'This account is banned'],
  refresh_token_not_found: [401, 'invalid_refresh_token', 'The refresh token is invalid, used or expired'],
  refresh_token_already_used: [401, 'invalid_refresh_token', 'The refresh token is invalid, used or expired'],
  bad_jwt: [401, 'invalid_token', 'The access token is invalid or expired'],
  no_authorization: [401, 'unauthorized', 'Sign in first'],
  // An ended session is `unauthorized` on every route, as the database's session check answers it.
  session_expired: [401, 'unauthorized', 'Your session has ended: sign in again'],
  session_not_found: [401, 'unauthorized', 'Your session has ended: sign in again'],
  email_exists: [409, 'email_taken', 'This e-mail address is already in use'],
  user_already_exists: [409, 'email_taken', 'This e-mail address is already in use'],
  user_not_found: [404, 'user_not_found', 'No such account'],
  over_request_rate_limit: [429, 'rate_limited', 'Too many requests; try again in a moment'],
  over_email_send_rate_limit: [429, 'rate_limited', 'Too many e-mails requested; try again in a moment'],
  mfa_verification_failed: [
    400,
    'invalid_code',
    'The code is wrong or has expired: enter the current code of your authenticator app',
  ],
  mfa_challenge_expired: [
    400,
    'invalid_code',
    'The code is wrong or has expired: enter the current code of your authenticator app',
  ],
  mfa_factor_not_found: [404, 'factor_not_found', 'No such factor of yours'],
  mfa_factor_name_conflict: [409, 'factor_name_taken', 'You already have a factor with this name: choose another'],
  too_many_enrolled_mfa_factors: [409, 'too_many_factors', 'You have as many factors as allowed: remove one first'],
  insufficient_aal: [
    403,
    'second_factor_required',
    'Verify your second factor first: this needs a session stepped up with your authenticator app (aal2)',
  ],
  // Auth reports a refusal by our sign-up trigger (taken username, banned e-mail) as a failure of its own.
  unexpected_failure: [
    409,
    'registration_refused',
    'This account cannot be created: the username or e-mail is not available',
  ],
};

/**
 * A refusal by one of Auth's hooks in the database (private.before_user_created for a sign-up,
 * private.mfa_verification_attempt for an authenticator code): Auth answers it with its own code `unknown`, so
 * the hook puts the stable code before the message.
 */
const hookRefusal =
  /^(invalid_username|username_reserved|username_taken|invalid_time_zone|email_banned|owner_proof_required|too_many_code_attempts|code_already_used): (.+)$/s;

/** The facade's error for anything a call to Auth threw. */
export function fromAuth(
  error: unknown,
  overrides: Record<string, [ContentfulStatusCode, string, string]> = {},
): ApiError {
  if (!(error instanceof AuthError)) {
    return error instanceof ApiError
      ? error
      : new ApiError(503, 'auth_unavailable', 'The authentication service failed', undefined, 5);
  }
  // Auth could not send its e-mail (its mail server is down): "Error sending confirmation email" and the like.
  if (error.status >= 500 && /error sending .*e-?mail/i.test(error.message)) return mailUnavailable();
  const refusal = error.code === 'unknown' && error.status < 500 ? hookRefusal.exec(error.message) : null;
  if (refusal) {
    // A locked factor names the seconds until it opens (private.too_many_code_attempts): that is the Retry-After.
    const wait = /try again in (\d+) seconds/.exec(refusal[2])?.[1];
    return new ApiError(
      error.status as ContentfulStatusCode,
      refusal[1],
      refusal[2],
      undefined,
      wait ? Number(wait) : undefined,
    );
  }
  // The Send Email hook found no slot for the e-mail (private.take_mail_slot): Auth passes its 429 on as `unknown`.
  const code = error.code === 'unknown' && error.status === 429 ? 'over_email_send_rate_limit' : error.code;
  const known = overrides[code] ?? translations[code];
  if (known) return new ApiError(known[0], known[1], known[2]);
  if (error.status >= 500) {
    return new ApiError(503, 'auth_unavailable', 'The authentication service failed', undefined, 5);
  }
  return new ApiError(400, 'auth_rejected', 'The authentication service refused the request');
}

/**
 * The facade's error for Auth refusing a new account's or a new e-mail's `address`. When a trigger on
 * auth.users refused it, a banned address gets its precise error: asked only now that Auth's rate limits have
 * counted the attempt, and outside any transaction of the request (whose connection it would wait for).
 */
export async function fromAuthAddress(deps: RequestDeps, error: unknown, address: string): Promise<ApiError> {
  if (error instanceof AuthError && error.code === 'unexpected_failure') {
    await queryAs(deps, server, sql`select private.refuse_banned_email(${address})`);
  }
  return fromAuth(error);
}
