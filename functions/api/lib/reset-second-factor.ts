// A password reset of an account with a second factor (POST /auth/reset_password; docs/PRODUCT.md, "Two-factor"):
// the e-mailed code proves the mailbox, the authenticator's code the factor, as Auth asks (an aal2 session to set
// a password on such an account). An owner who lost the authenticator starts the 72-hour removal of the factors
// instead, proved by the same e-mailed code; once it is over, the reset completes it and sets the password.
import { mailRecoveryNotice } from './account-notices.ts';
import type { AuthSession } from './auth-api.ts';
import { fromAuth } from './auth-errors.ts';
import type { RequestDeps } from './context.ts';
import { ApiError } from './errors.ts';
import { queryAs } from './query.ts';
import { sql } from './sql-text.ts';
import { server } from './tokens.ts';

export interface SecondFactorInput {
  totp_code?: string;
  factor_id?: string;
  lost_authenticator?: boolean;
}

type Proved = { accessToken: string } | { recovery: { requested_at: string; completes_at: string } };

/** The token that may set the password (the recovery session, stepped up when needed), or the started recovery. */
export async function proveSecondFactor(
  deps: RequestDeps,
  recovery: AuthSession,
  input: SecondFactorInput,
  clientIp: string | undefined,
  userAgent: string | undefined,
): Promise<Proved> {
  const user = await deps.auth.getUser(recovery.access_token).catch((error) => {
    throw fromAuth(error);
  });
  const factors = (user.factors ?? []).filter((factor) => factor.status === 'verified');
  if (factors.length === 0) return { accessToken: recovery.access_token };

  if (input.lost_authenticator) {
    const proved = await removeLostFactors(deps, user.id, recovery.access_token);
    if ('recovery' in proved) {
      await mailRecoveryNotice(deps, { id: user.id, email: user.email ?? '' }, 'factor_recovery_started', {
        address: clientIp,
        device: userAgent,
      });
    }
    return proved;
  }
  if (!input.totp_code) {
    throw new ApiError(
      403,
      'second_factor_required',
      'This account has a second factor: send totp_code, the current code of ' +
        'your authenticator app, or lost_authenticator: true if you lost it (ask for a new e-mailed code first: this one is used)',
    );
  }
  const factor = input.factor_id
    ? factors.find((f) => f.id === input.factor_id)
    : factors.length === 1
    ? factors[0]
    : undefined;
  if (!factor) {
    throw new ApiError(
      400,
      'factor_id_required',
      'Give factor_id: the account has several authenticators (or none with that id)',
    );
  }
  const stepped = await deps.auth.challenge(recovery.access_token, factor.id, clientIp)
    .then((challenge) =>
      deps.auth.verifyFactor(recovery.access_token, factor.id, challenge.id, input.totp_code!, clientIp, userAgent)
    )
    .catch((error) => {
      throw fromAuth(error);
    });
  return { accessToken: stepped.access_token };
}

/** Completes a recovery whose wait is over (then the recovery session may set the password), else starts or shows it. */
async function removeLostFactors(deps: RequestDeps, userId: string, accessToken: string): Promise<Proved> {
  const [{ outcome }] = await queryAs(deps, server, sql`select private.recover_lost_factors(${userId}) as outcome`);
  return outcome.recovery ? { recovery: outcome.recovery } : { accessToken };
}
