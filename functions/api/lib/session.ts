// What the facade answers once Auth has issued a session: the tokens, the user and their profile, read
// from the database as that user (which also proves the new token works).
import type { AuthSession } from './auth-api.ts';
import type { RequestDeps } from './context.ts';
import { queryAs } from './query.ts';
import { rpcStatement } from './rpc-statement.ts';
import { sql } from './sql-text.ts';
import type { Caller } from './tokens.ts';

/** The caller's id and e-mail, at any assurance level (an aal1 session of an account with a factor too). */
export async function ownAccount(deps: RequestDeps, caller: Caller): Promise<{ id: string; email: string }> {
  const [row] = await queryAs(deps, caller, sql`select private.own_account() as account`);
  return row.account;
}

/** The caller's own profile with their e-mail; 401 once their session has ended, 403 before the second factor. */
export async function ownProfile(deps: RequestDeps, caller: Caller) {
  const [row] = await queryAs(deps, caller, rpcStatement('me', {}));
  return row.result;
}

export async function sessionReply(deps: RequestDeps, session: AuthSession) {
  const caller = await deps.verifyToken(session.access_token);
  const factors = (session.user.factors ?? []).filter((factor) => factor.status === 'verified');
  const aal: 'aal1' | 'aal2' = caller.claims.aal === 'aal2' ? 'aal2' : 'aal1';
  const stepUpRequired = aal === 'aal1' && factors.length > 0;
  // Until it steps up, such a session sees what anybody may: not its own profile (docs/PRODUCT.md, "Two-factor").
  const profile = stepUpRequired ? null : await ownProfile(deps, caller);
  // A pending removal of the factors is told to every new session of the account (docs/PRODUCT.md, "Two-factor").
  const recovery = factors.length === 0
    ? null
    : (await queryAs(deps, caller, rpcStatement('factor_recovery', {})))[0].result;
  return {
    session: {
      access_token: session.access_token,
      refresh_token: session.refresh_token,
      token_type: session.token_type,
      expires_in: session.expires_in,
      expires_at: session.expires_at,
    },
    user: { id: session.user.id, email: stepUpRequired ? null : session.user.email ?? null },
    profile,
    // An account with a second factor signs in at aal1: the answer says to step up (docs/PRODUCT.md, "Two-factor").
    mfa: {
      aal,
      step_up_required: stepUpRequired,
      recovery,
      factors: factors.map((factor) => ({
        id: factor.id,
        friendly_name: factor.friendly_name ?? null,
        factor_type: factor.factor_type as 'totp' | 'phone' | 'webauthn',
      })),
    },
  };
}
